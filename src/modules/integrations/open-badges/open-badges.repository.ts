import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface AchievementRow {
  id: string;
  kind: 'course' | 'program';
  title: string;
  description: string;
  language: 'es' | 'en' | null;
}

export interface CertificateStatusRow {
  id: string;
  status: 'active' | 'revoked' | 'replaced';
  replaced_by_code: string | null;
}

/**
 * Read-only look-ups of Open Badges (extensions-v2 25.5) in the tables of other areas: the catalog (courses and
 * programs with an issued, unrevoked credential), issued certificates (their status) and the holder's address (hashed into the
 * credential). This area writes nothing.
 */
@Injectable()
export class OpenBadgesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A course or program shown publicly as an achievement: only when at least one credential for it was issued
   * and is not revoked (extensions-v3 6.11), so an id alone does not reveal an organization-only course.
   */
  async achievement(id: string): Promise<AchievementRow | null> {
    const rows = await this.dataSource.query<AchievementRow[]>(
      `${tenancyExempt('public-by-key')} SELECT id, 'course' AS kind, title, summary AS description, language FROM courses_read c
       WHERE id = $1 AND EXISTS (SELECT 1 FROM issued_certificates_read i WHERE i.course_id = c.id AND i.status <> 'revoked')
       UNION ALL
       SELECT id, 'program' AS kind, title, description_md AS description, NULL AS language FROM learning_paths_read p
       WHERE id = $1 AND EXISTS (SELECT 1 FROM issued_certificates_read i WHERE i.path_id = p.id AND i.status <> 'revoked')`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Whether the organization issued at least one credential that is not revoked (its public issuer profile). */
  async hasIssuedCredential(organizationId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM issued_certificates_read WHERE ${orgEq(1)} AND status <> 'revoked' LIMIT 1`,
      [organizationId],
    );
    return rows.length > 0;
  }

  /** The achievement of a certificate, published or not (a course unpublished later keeps its credentials). */
  async achievementOfCertificate(courseId: string | null, pathId: string | null): Promise<AchievementRow | null> {
    const rows = await this.dataSource.query<AchievementRow[]>(
      courseId
        ? `SELECT id, 'course' AS kind, title, summary AS description, language FROM courses_read WHERE id = $1`
        : `SELECT id, 'program' AS kind, title, description_md AS description, NULL AS language FROM learning_paths_read
           WHERE id = $1`,
      [courseId ?? pathId],
    );
    return rows[0] ?? null;
  }

  async certificateStatus(id: string): Promise<CertificateStatusRow | null> {
    const rows = await this.dataSource.query<CertificateStatusRow[]>(
      `${tenancyExempt('public-by-key')} SELECT c.id, c.status, r.code AS replaced_by_code
       FROM issued_certificates_read c LEFT JOIN issued_certificates_read r ON r.id = c.replaced_by_id
       WHERE c.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async holderEmail(userId: string): Promise<string | null> {
    const rows = await this.dataSource.query<{ email: string }[]>(`SELECT email FROM users_read WHERE id = $1`, [
      userId,
    ]);
    return rows[0]?.email ?? null;
  }
}
