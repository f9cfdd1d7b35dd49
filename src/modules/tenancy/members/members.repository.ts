import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { OrgRole } from '@/core/auth/tenancy';
import type { Tx } from '@/core/database/transaction';
import { orgEq } from '@/core/database/tenancy';

export interface MemberRow {
  user_id: string;
  name: string | null;
  email: string;
  role: OrgRole;
  minor: boolean;
  cohort_ids: string[];
  joined_at: Date;
  /** What the organization's SCIM directory says (extensions-v3 2.3), null when it never provisioned the person. */
  directory: Record<string, string> | null;
}

export interface MemberFilter {
  role?: OrgRole;
  /** Matches name or email, case-insensitive, anywhere. */
  q?: string;
  cohortId?: string;
  /** Only these people (a teacher's students); null = everyone. */
  userIds: string[] | null;
  limit: number;
  offset: number;
}

const SELECT = `SELECT m.user_id, u.name, u.email, m.role, m.joined_at, u.age_bracket = 'under_18' AS minor,
    ARRAY(SELECT cm.cohort_id::text FROM cohort_members_read cm
          WHERE cm.organization_id = m.organization_id AND cm.user_id = m.user_id ORDER BY cm.cohort_id) AS cohort_ids,
    (SELECT jsonb_strip_nulls(jsonb_build_object('user_name', s.user_name, 'external_id', s.external_id,
       'given_name', s.given_name, 'family_name', s.family_name, 'display_name', s.display_name) || s.directory)
     FROM scim_members_read s WHERE s.organization_id = m.organization_id AND s.user_id = m.user_id) AS directory
  FROM memberships_read m JOIN users_read u ON u.id = m.user_id`;

/**
 * The member views of an organization: memberships with the person's name, email and cohorts, read in one
 * query (joining four areas' read views; every change goes through OrganizationsService). Every query takes the
 * organization id.
 */
@Injectable()
export class MembersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Newest members first, ties by user id (a stable order for paging). The organization is served by the
   * memberships key, role by memberships_org_role_idx, the cohort by the cohort_members key.
   */
  async list(organizationId: string, filter: MemberFilter): Promise<{ rows: MemberRow[]; total: number }> {
    const where = `WHERE ${orgEq(1, 'm')}
      AND ($2::text IS NULL OR m.role = $2)
      AND ($3::text IS NULL OR u.name ILIKE $3 ESCAPE '\\' OR u.email ILIKE $3 ESCAPE '\\')
      AND ($4::uuid IS NULL OR EXISTS (SELECT 1 FROM cohort_members_read c
            WHERE c.cohort_id = $4 AND c.user_id = m.user_id AND c.organization_id = m.organization_id))
      AND ($5::uuid[] IS NULL OR m.user_id = ANY($5::uuid[]))`;
    const params = [
      organizationId,
      filter.role ?? null,
      filter.q !== undefined ? `%${filter.q.replace(/[\\%_]/g, '\\$&')}%` : null,
      filter.cohortId ?? null,
      filter.userIds,
    ];
    const [rows, [count]] = await Promise.all([
      this.dataSource.query<MemberRow[]>(`${SELECT} ${where} ORDER BY m.joined_at DESC, m.user_id LIMIT $6 OFFSET $7`, [
        ...params,
        filter.limit,
        filter.offset,
      ]),
      this.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM memberships_read m JOIN users_read u ON u.id = m.user_id ${where}`,
        params,
      ),
    ]);
    return { rows, total: count?.n ?? 0 };
  }

  /** One member as stored now (inside a transaction: after the organization's member lock). */
  async find(organizationId: string, userId: string, tx?: Tx): Promise<MemberRow | null> {
    const rows = await db(this.dataSource, tx).query<MemberRow[]>(
      `${SELECT} WHERE ${orgEq(1, 'm')} AND m.user_id = $2`,
      [organizationId, userId],
    );
    return rows[0] ?? null;
  }

  /** The id of the member of this organization with this username, or null. */
  async memberIdByUsername(organizationId: string, username: string): Promise<string | null> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT u.id FROM users_read u JOIN memberships_read m ON m.user_id = u.id AND ${orgEq(1, 'm')}
       WHERE u.username = $2`,
      [organizationId, username],
    );
    return rows[0]?.id ?? null;
  }
}
