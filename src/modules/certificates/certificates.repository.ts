import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Tx } from '@/core/database/transaction';
import type { CertificateType } from './certificate-code';

export interface IssuedCertificateRow {
  id: string;
  code: string;
  type: CertificateType;
  status: 'active' | 'revoked' | 'replaced';
  organization_id: string;
  user_id: string;
  holder_name: string;
  course_id: string | null;
  path_id: string | null;
  cohort_id: string | null;
  title: string;
  grade: number | null;
  issued_at: Date;
  revoked_at: Date | null;
  revoke_reason: string | null;
  replaced_by_id: string | null;
  replaces_id: string | null;
  reissue_reason: string | null;
}

export const CERTIFICATE_COLUMNS = `id, code, type, status, organization_id, user_id, holder_name, course_id, path_id, cohort_id, title,
  grade, issued_at, revoked_at, revoke_reason, replaced_by_id, replaces_id, reissue_reason`;

export interface NewCertificate {
  code: string;
  type: CertificateType;
  organizationId: string;
  userId: string;
  holderName: string;
  courseId: string | null;
  pathId: string | null;
  cohortId: string | null;
  title: string;
  grade: number | null;
  issuedAt: Date;
  replacesId?: string | null;
  reissueReason?: string | null;
}

/** Issued certificates are tenant data: bound to the issuing organization. */
@Injectable()
export class CertificatesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Inserts unless the code is taken or the person already holds an active certificate for the same course or
   * program in this organization (the partial unique indexes); returns the row only when it was inserted.
   */
  async insertIfAbsent(c: NewCertificate, tx: Tx): Promise<IssuedCertificateRow | null> {
    const rows = await tx.manager.query<IssuedCertificateRow[]>(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, path_id, cohort_id, title, grade,
         issued_at, replaces_id, reissue_reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT DO NOTHING RETURNING ${CERTIFICATE_COLUMNS}`,
      [
        c.code,
        c.type,
        c.organizationId,
        c.userId,
        c.holderName,
        c.courseId,
        c.pathId,
        c.cohortId,
        c.title,
        c.grade,
        c.issuedAt,
        c.replacesId ?? null,
        c.reissueReason ?? null,
      ],
    );
    return rows[0] ?? null;
  }

  async findActive(
    organizationId: string,
    userId: string,
    type: CertificateType,
    subjectId: string,
    tx?: Tx,
  ): Promise<IssuedCertificateRow | null> {
    const column = type === 'course' ? 'course_id' : 'path_id';
    const rows = await (tx?.manager ?? this.dataSource.manager).query<IssuedCertificateRow[]>(
      `SELECT ${CERTIFICATE_COLUMNS} FROM issued_certificates
       WHERE organization_id = $1 AND user_id = $2 AND type = $3 AND ${column} = $4 AND status = 'active'`,
      [organizationId, userId, type, subjectId],
    );
    return rows[0] ?? null;
  }
}
