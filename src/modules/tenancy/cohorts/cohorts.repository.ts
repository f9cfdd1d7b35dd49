import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { orgEq } from '@/core/database/tenancy';

export interface CohortRow {
  id: string;
  organization_id: string;
  institute_id: string | null;
  name: string;
  starts_on: string | null;
  ends_on: string | null;
  created_at: Date;
  updated_at: Date;
}

export type CohortRole = 'student' | 'teacher';

/** The writable columns of a cohort. */
export interface CohortValues {
  name: string;
  institute_id: string | null;
  starts_on: string | null;
  ends_on: string | null;
}

export interface CohortFilter {
  /** Only cohorts this person teaches. */
  teacherId?: string;
  instituteId?: string;
  /** Name contains, case-insensitive. */
  q?: string;
}

export interface CohortMemberStats {
  membersCount: Map<string, number>;
  /** Teacher user ids per cohort. */
  teachers: Map<string, string[]>;
}

const COLUMNS = `id, organization_id, institute_id, name, to_char(starts_on, 'YYYY-MM-DD') AS starts_on,
  to_char(ends_on, 'YYYY-MM-DD') AS ends_on, created_at, updated_at`;

/** `%`, `_` and `\` are wildcards in ILIKE; a search for them means the characters themselves. */
function likeContains(q: string): string {
  return `%${q.replace(/[\\%_]/g, '\\$&')}%`;
}

/** Cohorts are tenant data: every query takes the organization id. */
@Injectable()
export class CohortsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(organizationId: string, cohortId: string, tx?: Tx): Promise<CohortRow | null> {
    const rows = await db(this.dataSource, tx).query<CohortRow[]>(
      `SELECT ${COLUMNS} FROM cohorts WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, cohortId],
    );
    return rows[0] ?? null;
  }

  /** The cohort, locked until the transaction ends (a read-modify-write of its dates). */
  async findForUpdate(organizationId: string, cohortId: string, tx: Tx): Promise<CohortRow | null> {
    const rows = await tx.manager.query<CohortRow[]>(
      `SELECT ${COLUMNS} FROM cohorts WHERE ${orgEq(1)} AND id = $2 FOR UPDATE`,
      [organizationId, cohortId],
    );
    return rows[0] ?? null;
  }

  async findByName(organizationId: string, name: string, tx?: Tx): Promise<CohortRow | null> {
    const rows = await db(this.dataSource, tx).query<CohortRow[]>(
      `SELECT ${COLUMNS} FROM cohorts WHERE ${orgEq(1)} AND lower(name) = lower($2) ORDER BY created_at LIMIT 1`,
      [organizationId, name],
    );
    return rows[0] ?? null;
  }

  /**
   * A page of the organization's cohorts, most recent first. Served by `cohorts_org_idx` (organization, created_at),
   * `cohorts_institute_idx` (institute filter), `cohorts_name_trgm_idx` (`q`) and the primary key of
   * `cohort_members` (teacher filter).
   */
  async list(
    organizationId: string,
    filter: CohortFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: CohortRow[]; total: number }> {
    const params: unknown[] = [organizationId];
    const where = [orgEq(1, 'c')];
    if (filter.teacherId) {
      params.push(filter.teacherId);
      where.push(
        `EXISTS (SELECT 1 FROM cohort_members m WHERE m.cohort_id = c.id AND m.user_id = $${params.length}
           AND m.organization_id = c.organization_id AND m.role = 'teacher')`,
      );
    }
    if (filter.instituteId) {
      params.push(filter.instituteId);
      where.push(`c.institute_id = $${params.length}`);
    }
    if (filter.q) {
      params.push(likeContains(filter.q));
      where.push(`c.name ILIKE $${params.length}`);
    }
    const condition = where.join(' AND ');
    const [rows, count] = await Promise.all([
      this.dataSource.query<CohortRow[]>(
        `SELECT ${COLUMNS} FROM cohorts c WHERE ${condition}
         ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM cohorts c WHERE ${condition}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  /** Every cohort of one institute in this organization, most recent first. */
  listByInstitute(organizationId: string, instituteId: string): Promise<CohortRow[]> {
    return this.dataSource.query<CohortRow[]>(
      `SELECT ${COLUMNS} FROM cohorts WHERE institute_id = $1 AND ${orgEq(2)}
       ORDER BY created_at DESC, id DESC`,
      [instituteId, organizationId],
    );
  }

  async insert(organizationId: string, values: CohortValues, now: Date, tx: Tx): Promise<CohortRow> {
    const rows = await tx.manager.query<CohortRow[]>(
      `INSERT INTO cohorts (organization_id, institute_id, name, starts_on, ends_on, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${COLUMNS}`,
      [organizationId, values.institute_id, values.name, values.starts_on, values.ends_on, now],
    );
    return rows[0];
  }

  async update(organizationId: string, cohortId: string, values: CohortValues, now: Date, tx: Tx): Promise<CohortRow> {
    const [rows] = await tx.manager.query<[CohortRow[], number]>(
      `UPDATE cohorts SET name = $3, institute_id = $4, starts_on = $5, ends_on = $6, updated_at = $7
       WHERE ${orgEq(1)} AND id = $2 RETURNING ${COLUMNS}`,
      [organizationId, cohortId, values.name, values.institute_id, values.starts_on, values.ends_on, now],
    );
    return rows[0];
  }

  /** Deletes the cohort (its member rows go with it); returns it, or null when there was none. */
  async delete(organizationId: string, cohortId: string, tx: Tx): Promise<CohortRow | null> {
    const [rows] = await tx.manager.query<[CohortRow[], number]>(
      `DELETE FROM cohorts WHERE ${orgEq(1)} AND id = $2 RETURNING ${COLUMNS}`,
      [organizationId, cohortId],
    );
    return rows[0] ?? null;
  }

  /** Member counts and teachers of these cohorts of the organization, in two queries for a whole page. */
  async memberStats(organizationId: string, cohortIds: string[]): Promise<CohortMemberStats> {
    const stats: CohortMemberStats = { membersCount: new Map(), teachers: new Map() };
    if (cohortIds.length === 0) return stats;
    const [counts, teachers] = await Promise.all([
      this.dataSource.query<{ cohort_id: string; n: number }[]>(
        `SELECT cohort_id, count(*)::int AS n FROM cohort_members
         WHERE cohort_id = ANY($2) AND ${orgEq(1)} GROUP BY cohort_id`,
        [organizationId, cohortIds],
      ),
      this.dataSource.query<{ cohort_id: string; user_id: string }[]>(
        `SELECT cohort_id, user_id FROM cohort_members
         WHERE cohort_id = ANY($2) AND ${orgEq(1)} AND role = 'teacher' ORDER BY added_at, user_id`,
        [organizationId, cohortIds],
      ),
    ]);
    for (const row of counts) stats.membersCount.set(row.cohort_id, row.n);
    for (const row of teachers) {
      const list = stats.teachers.get(row.cohort_id) ?? [];
      list.push(row.user_id);
      stats.teachers.set(row.cohort_id, list);
    }
    return stats;
  }

  /** Adds (or re-roles) a member of the organization to a cohort of the same organization. */
  async addMember(
    organizationId: string,
    cohortId: string,
    userId: string,
    role: CohortRole,
    now: Date,
    tx?: Tx,
  ): Promise<void> {
    await this.putMember(organizationId, cohortId, userId, role, now, tx);
  }

  /** `addMember` for many (cohort, person) pairs in one statement; a pair named twice keeps its last role. */
  async addMembers(
    organizationId: string,
    entries: readonly { cohortId: string; userId: string; role: CohortRole }[],
    now: Date,
    tx: Tx,
  ): Promise<void> {
    const byPair = new Map(entries.map((e) => [`${e.cohortId}:${e.userId}`, e]));
    if (byPair.size === 0) return;
    const unique = [...byPair.values()];
    await tx.manager.query(
      `INSERT INTO cohort_members (cohort_id, organization_id, user_id, role, added_at)
       SELECT c, $1, u, r, $5 FROM unnest($2::uuid[], $3::uuid[], $4::text[]) AS x(c, u, r)
       ON CONFLICT (cohort_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
      [organizationId, unique.map((e) => e.cohortId), unique.map((e) => e.userId), unique.map((e) => e.role), now],
    );
  }

  /**
   * For each name, the cohort `findByName` would answer (lower() by the database, the oldest first); keyed by the
   * name as given, names without a cohort absent.
   */
  async findByNames(organizationId: string, names: readonly string[], tx?: Tx): Promise<Map<string, CohortRow>> {
    const distinct = [...new Set(names)];
    if (distinct.length === 0) return new Map();
    const rows = await db(this.dataSource, tx).query<(CohortRow & { given: string })[]>(
      `SELECT m.given, ${COLUMNS} FROM (
         SELECT DISTINCT ON (x.given) x.given, c.id AS cohort_id FROM unnest($2::text[]) AS x(given)
         JOIN cohorts c ON ${orgEq(1, 'c')} AND lower(c.name) = lower(x.given)
         ORDER BY x.given, c.created_at
       ) m JOIN cohorts ON cohorts.id = m.cohort_id`,
      [organizationId, distinct],
    );
    return new Map(rows.map(({ given, ...row }) => [given, row]));
  }

  /**
   * Adds the member, or sets the role of one already there; answers the role they had before (null when new).
   * The database refuses a person who is not a member of the organization (foreign key to memberships).
   * `prev` reads the statement's snapshot, i.e. the row as it was before this upsert (no FOR UPDATE: a row locked
   * after this very statement changed it would read as absent).
   */
  async putMember(
    organizationId: string,
    cohortId: string,
    userId: string,
    role: CohortRole,
    now: Date,
    tx?: Tx,
  ): Promise<{ previousRole: CohortRole | null }> {
    const rows = await db(this.dataSource, tx).query<{ previous_role: CohortRole | null }[]>(
      `WITH prev AS (
         SELECT role FROM cohort_members WHERE cohort_id = $1 AND user_id = $3 AND ${orgEq(2)}
       )
       INSERT INTO cohort_members (cohort_id, organization_id, user_id, role, added_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (cohort_id, user_id) DO UPDATE SET role = EXCLUDED.role
       RETURNING (SELECT role FROM prev) AS previous_role`,
      [cohortId, organizationId, userId, role, now],
    );
    return { previousRole: rows[0]?.previous_role ?? null };
  }

  /** Removes the person from the cohort; answers the role they had, or null when they were not in it. */
  async removeMember(organizationId: string, cohortId: string, userId: string, tx: Tx): Promise<CohortRole | null> {
    const [rows] = await tx.manager.query<[{ role: CohortRole }[], number]>(
      `DELETE FROM cohort_members WHERE cohort_id = $2 AND user_id = $3 AND ${orgEq(1)} RETURNING role`,
      [organizationId, cohortId, userId],
    );
    return rows[0]?.role ?? null;
  }

  /** Removes these people from the cohort in one statement; returns those who were in it. */
  async removeMembers(organizationId: string, cohortId: string, userIds: readonly string[], tx: Tx): Promise<string[]> {
    if (userIds.length === 0) return [];
    const [rows] = await tx.manager.query<[{ user_id: string }[], number]>(
      `DELETE FROM cohort_members WHERE cohort_id = $2 AND ${orgEq(1)} AND user_id = ANY($3::uuid[])
       RETURNING user_id`,
      [organizationId, cohortId, userIds],
    );
    return rows.map((r) => r.user_id);
  }

  async cohortIdsOfMember(organizationId: string, userId: string, role?: CohortRole, tx?: Tx): Promise<string[]> {
    const rows = await db(this.dataSource, tx).query<{ cohort_id: string }[]>(
      `SELECT cohort_id FROM cohort_members WHERE ${orgEq(1)} AND user_id = $2 AND ($3::text IS NULL OR role = $3)`,
      [organizationId, userId, role ?? null],
    );
    return rows.map((r) => r.cohort_id);
  }

  /** Which of these people are in at least one of these cohorts of the organization (any cohort role). */
  async membersAmong(
    organizationId: string,
    cohortIds: readonly string[],
    userIds: readonly string[],
  ): Promise<string[]> {
    if (cohortIds.length === 0 || userIds.length === 0) return [];
    const rows = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT DISTINCT user_id FROM cohort_members
       WHERE ${orgEq(1)} AND cohort_id = ANY($2::uuid[]) AND user_id = ANY($3::uuid[])`,
      [organizationId, cohortIds, userIds],
    );
    return rows.map((r) => r.user_id);
  }

  async isTeacherOf(organizationId: string, cohortId: string, userId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM cohort_members WHERE ${orgEq(1)} AND cohort_id = $2 AND user_id = $3 AND role = 'teacher'`,
      [organizationId, cohortId, userId],
    );
    return rows.length > 0;
  }

  /** The students of every cohort this person teaches in the organization. */
  async studentsAmongTaughtBy(
    organizationId: string,
    teacherId: string,
    userIds: readonly string[],
  ): Promise<string[]> {
    const rows = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT DISTINCT s.user_id FROM cohort_members t
       JOIN cohort_members s ON s.cohort_id = t.cohort_id AND s.organization_id = t.organization_id AND s.role = 'student'
       WHERE ${orgEq(1, 't')} AND t.user_id = $2 AND t.role = 'teacher' AND s.user_id = ANY($3::uuid[])`,
      [organizationId, teacherId, userIds],
    );
    return rows.map((r) => r.user_id);
  }

  async studentIdsTaughtBy(organizationId: string, teacherId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT DISTINCT s.user_id FROM cohort_members t
       JOIN cohort_members s ON s.cohort_id = t.cohort_id AND s.organization_id = t.organization_id AND s.role = 'student'
       WHERE ${orgEq(1, 't')} AND t.user_id = $2 AND t.role = 'teacher'`,
      [organizationId, teacherId],
    );
    return rows.map((r) => r.user_id);
  }

  /** The students of one cohort of the organization. */
  async studentIdsOf(organizationId: string, cohortId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT user_id FROM cohort_members WHERE ${orgEq(1)} AND cohort_id = $2 AND role = 'student' ORDER BY user_id`,
      [organizationId, cohortId],
    );
    return rows.map((r) => r.user_id);
  }
}
