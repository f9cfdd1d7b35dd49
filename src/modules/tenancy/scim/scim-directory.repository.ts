import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Filter } from 'scim2-parse-filter';
import type { OrgRole } from '@/core/auth/tenancy';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { compileScimFilter, type ScimAttributes } from './scim-filter';
import { orgEq } from '@/core/database/tenancy';

export interface DirectoryAttributes {
  employeeNumber?: string;
  costCenter?: string;
  organization?: string;
  division?: string;
  department?: string;
}

export interface ScimUserRow {
  user_id: string;
  role: OrgRole;
  joined_at: Date;
  suspended_at: Date | null;
  email: string;
  name: string | null;
  locale: string;
  time_zone: string;
  user_name: string | null;
  external_id: string | null;
  given_name: string | null;
  family_name: string | null;
  display_name: string | null;
  directory: DirectoryAttributes | null;
  created_at: Date | null;
  updated_at: Date | null;
  groups: { value: string; display: string }[];
}

export interface ScimGroupRow {
  id: string;
  name: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ScimGroupMemberRow {
  cohort_id: string;
  user_id: string;
  display: string | null;
}

export interface DirectoryValues {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  directory: DirectoryAttributes;
}

/** `$1` is always the organization. */
const USER_ATTRIBUTES: ScimAttributes = {
  id: {
    sql: 'm.user_id::text',
    type: 'string',
    eq: (p) => `m.user_id = (CASE WHEN ${p} ~ '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$' THEN ${p}::uuid END)`,
  },
  username: {
    sql: 'coalesce(s.user_name, u.email)',
    type: 'string',
    // Two index probes (scim_members_user_name_uq, users_email_uq) give the candidates; the expression decides.
    eq: (p) =>
      `m.user_id = ANY(ARRAY(SELECT s2.user_id FROM scim_members s2 WHERE ${orgEq(1, 's2')} AND s2.user_name = ${p})
        || ARRAY(SELECT u2.id FROM users_read u2 WHERE u2.email = ${p})) AND lower(coalesce(s.user_name, u.email)) = ${p}`,
  },
  externalid: { sql: 's.external_id', type: 'caseExactString' },
  'name.givenname': { sql: 's.given_name', type: 'string' },
  'name.familyname': { sql: 's.family_name', type: 'string' },
  'name.formatted': { sql: 'coalesce(s.display_name, u.name)', type: 'string' },
  displayname: { sql: 'coalesce(s.display_name, u.name)', type: 'string' },
  'emails.value': { sql: 'u.email', type: 'string', eq: (p) => `u.email = ${p}` },
  'emails.type': { sql: `'work'::text`, type: 'string' },
  'emails.primary': { sql: 'true', type: 'boolean' },
  active: { sql: '(m.suspended_at IS NULL)', type: 'boolean' },
  preferredlanguage: { sql: 'u.locale', type: 'string' },
  locale: { sql: 'u.locale', type: 'string' },
  timezone: { sql: 'u.time_zone', type: 'caseExactString' },
  'enterprise.employeenumber': { sql: `(s.directory->>'employeeNumber')`, type: 'string' },
  'enterprise.costcenter': { sql: `(s.directory->>'costCenter')`, type: 'string' },
  'enterprise.organization': { sql: `(s.directory->>'organization')`, type: 'string' },
  'enterprise.division': { sql: `(s.directory->>'division')`, type: 'string' },
  'enterprise.department': { sql: `(s.directory->>'department')`, type: 'string' },
  'meta.created': { sql: 'coalesce(s.created_at, m.joined_at)', type: 'dateTime' },
  'meta.lastmodified': { sql: 'coalesce(s.updated_at, m.joined_at)', type: 'dateTime' },
  'groups.value': {
    sql: 'gm.cohort_id::text',
    type: 'string',
    exists: (c) =>
      `EXISTS (SELECT 1 FROM cohort_members_read gm WHERE gm.organization_id = m.organization_id AND gm.user_id = m.user_id AND ${c})`,
  },
};

const GROUP_ATTRIBUTES: ScimAttributes = {
  id: {
    sql: 'c.id::text',
    type: 'string',
    eq: (p) => `c.id = (CASE WHEN ${p} ~ '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$' THEN ${p}::uuid END)`,
  },
  displayname: { sql: 'c.name', type: 'string' },
  externalid: { sql: 'g.external_id', type: 'caseExactString' },
  'members.value': {
    sql: 'mm.user_id::text',
    type: 'string',
    exists: (c) => `EXISTS (SELECT 1 FROM cohort_members_read mm WHERE mm.cohort_id = c.id AND ${c})`,
  },
  'meta.created': { sql: 'c.created_at', type: 'dateTime' },
  'meta.lastmodified': { sql: 'c.updated_at', type: 'dateTime' },
};

const USER_FROM = `FROM memberships_read m JOIN users_read u ON u.id = m.user_id
  LEFT JOIN scim_members s ON s.organization_id = m.organization_id AND s.user_id = m.user_id`;
const USER_COLUMNS = `m.user_id, m.role, m.joined_at, m.suspended_at, u.email, u.name, u.locale, u.time_zone,
    s.user_name, s.external_id, s.given_name, s.family_name, s.display_name, s.directory, s.created_at, s.updated_at,
    coalesce((SELECT json_agg(json_build_object('value', gc.id, 'display', gc.name) ORDER BY gc.name, gc.id)
      FROM cohort_members_read gm JOIN cohorts_read gc ON gc.id = gm.cohort_id
      WHERE gm.organization_id = m.organization_id AND gm.user_id = m.user_id), '[]') AS groups`;
const USER_SELECT = `SELECT ${USER_COLUMNS} ${USER_FROM}`;
const GROUP_FROM = `FROM cohorts_read c LEFT JOIN scim_groups g ON g.organization_id = c.organization_id AND g.cohort_id = c.id`;
const GROUP_SELECT = `SELECT c.id, c.name, g.external_id, c.created_at, c.updated_at ${GROUP_FROM}`;

/** A directory's growth (members created by one process) after which the planner's statistics are refreshed. */
export const STATISTICS_FIRST_REFRESH = 500;
/** ... and again each time it has grown this many times as much again. */
export const STATISTICS_REFRESH_GROWTH = 8;

export interface ListWindow {
  /** 0-based. */
  offset: number;
  limit: number;
}

/**
 * The directory's view of an organization: members with their account and their SCIM attributes, cohorts with
 * their SCIM attributes. It reads memberships, users and cohorts (owned by their areas) through their read views
 * (`*_read`, inlined by the planner) in one query; it writes only its own tables (scim_members, scim_groups). Every
 * query takes the organization id as `$1`.
 */
@Injectable()
export class ScimDirectoryRepository {
  private readonly logger = new Logger('ScimDirectory');
  /** Members created by this process per organization, and at which count the statistics are refreshed next. */
  private readonly growth = new Map<string, { created: number; next: number }>();
  private analyzing: Promise<void> | null = null;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Counts a member this process created in the organization's directory. A sync puts thousands of members into one
   * organization within minutes, and the planner's statistics, gathered while it had none, go on saying it has about
   * none: every statement scoped to it then reads the organization's rows through the first index that starts with
   * organization_id (memberships_pkey, scim_members_pkey) and filters, instead of probing the unique indexes. The
   * Entra probe (`userName eq`) read every member synced so far, so a full sync of n users cost O(n^2) rows
   * (EXPLAIN ANALYZE at 1 000 synced members: 1 910 buffers, 9.8 ms; after ANALYZE: 21 buffers, 0.5 ms). Autovacuum
   * analyzes a table only once 10 % of it has changed, which a sync into a large platform never reaches. So the two
   * tables the directory's statements scope by organization are analyzed here, in the background (one at a time),
   * once an organization has gained STATISTICS_FIRST_REFRESH members through this process, and again at each
   * STATISTICS_REFRESH_GROWTH-fold: a few hundred ms of the database's time per sync of thousands.
   */
  noteCreated(organizationId: string): void {
    const seen = this.growth.get(organizationId) ?? { created: 0, next: STATISTICS_FIRST_REFRESH };
    seen.created++;
    this.growth.set(organizationId, seen);
    if (seen.created < seen.next) return;
    seen.next *= STATISTICS_REFRESH_GROWTH;
    this.analyzing ??= this.dataSource
      .query('ANALYZE memberships, scim_members')
      .then(
        () => undefined,
        (err: unknown) => this.logger.warn({ err }, 'Could not refresh the planner statistics of the directory'),
      )
      .finally(() => (this.analyzing = null));
  }

  async listUsers(
    organizationId: string,
    filter: Filter | null,
    window: ListWindow,
  ): Promise<{ rows: ScimUserRow[]; total: number }> {
    const params: unknown[] = [organizationId];
    const where = `WHERE ${orgEq(1, 'm')}${filter ? ` AND ${compileScimFilter(filter, USER_ATTRIBUTES, params)}` : ''}`;
    return this.countAndPage<ScimUserRow>(
      `SELECT count(*)::int AS n ${USER_FROM} ${where}`,
      `${USER_SELECT} ${where} ORDER BY m.joined_at, m.user_id`,
      params,
      window,
    );
  }

  /**
   * The count of a filter's rows and their page, in one statement (one round trip): the count's one row joined to
   * the page (none when the page is empty, or when `limit` is 0).
   */
  private async countAndPage<T>(
    countSql: string,
    pageSql: string,
    params: unknown[],
    window: ListWindow,
  ): Promise<{ rows: T[]; total: number }> {
    if (window.limit <= 0) {
      const [count] = await this.dataSource.query<{ n: number }[]>(countSql, params);
      return { rows: [], total: count?.n ?? 0 };
    }
    const rows = await this.dataSource.query<(T & { n: number; has_page: boolean | null })[]>(
      `SELECT c.n, p.* FROM (${countSql}) c
       LEFT JOIN LATERAL (SELECT true AS has_page, q.* FROM (${pageSql} LIMIT ${window.limit} OFFSET ${window.offset}) q)
         p ON true`,
      params,
    );
    const total = rows[0]?.n ?? 0;
    const page = rows.filter((r) => r.has_page === true).map(({ n: _n, has_page: _p, ...row }) => row as unknown as T);
    return { rows: page, total };
  }

  async findUser(organizationId: string, userId: string, tx?: Tx): Promise<ScimUserRow | null> {
    const rows = await db(this.dataSource, tx).query<ScimUserRow[]>(
      `${USER_SELECT} WHERE ${orgEq(1, 'm')} AND m.user_id = $2`,
      [organizationId, userId],
    );
    return rows[0] ?? null;
  }

  /** The member whose userName (the directory's, else the account's email) is this one, other than `exceptId`. */
  async userNameTaken(organizationId: string, userName: string, exceptId: string | null, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<unknown[]>(
      `SELECT 1 ${USER_FROM} WHERE ${orgEq(1, 'm')} AND ${USER_ATTRIBUTES.username.eq!('$2')}
         AND ($3::uuid IS NULL OR m.user_id <> $3) LIMIT 1`,
      [organizationId, userName.toLowerCase(), exceptId],
    );
    return rows.length > 0;
  }

  /** Transaction-scoped advisory locks on these names of the organization (sorted: no two callers deadlock). */
  async lockNames(organizationId: string, names: readonly string[], tx: Tx): Promise<void> {
    const keys = [...new Set(names.map((n) => n.toLowerCase()))].sort();
    await tx.manager.query(
      `SELECT pg_advisory_xact_lock(hashtextextended('scim_user:' || $1 || ':' || k, 0)) FROM unnest($2::text[]) k ORDER BY k`,
      [organizationId, keys],
    );
  }

  async upsertDirectory(
    organizationId: string,
    userId: string,
    values: DirectoryValues,
    now: Date,
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO scim_members (organization_id, user_id, user_name, external_id, given_name, family_name,
         display_name, directory, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
       ON CONFLICT (organization_id, user_id) DO UPDATE SET user_name = $3, external_id = $4, given_name = $5,
         family_name = $6, display_name = $7, directory = $8, updated_at = $9`,
      [
        organizationId,
        userId,
        values.userName.toLowerCase(),
        values.externalId,
        values.givenName,
        values.familyName,
        values.displayName,
        JSON.stringify(values.directory),
        now,
      ],
    );
  }

  /**
   * `upsertDirectory` for a member created in this transaction, answering the member as `findUser` would read it
   * (in the same statement: no read back). A clash with another member's userName is a unique violation of
   * scim_members_user_name_uq. `alsoWrite` adds a data-modifying CTE to the statement, its parameters from `$10`.
   */
  async upsertDirectoryReturning(
    organizationId: string,
    userId: string,
    values: DirectoryValues,
    now: Date,
    tx: Tx,
    alsoWrite?: (firstParam: number) => { sql: string; params: unknown[] },
  ): Promise<ScimUserRow | null> {
    // Another owner's write in the same statement (the audit line), its SQL and parameters given by that owner.
    const also = alsoWrite?.(10);
    const rows = await tx.manager.query<ScimUserRow[]>(
      `WITH ${also ? `${also.sql}, ` : ''}s AS (
         INSERT INTO scim_members (organization_id, user_id, user_name, external_id, given_name, family_name,
           display_name, directory, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
         ON CONFLICT (organization_id, user_id) DO UPDATE SET user_name = $3, external_id = $4, given_name = $5,
           family_name = $6, display_name = $7, directory = $8, updated_at = $9
         RETURNING *)
       SELECT ${USER_COLUMNS} FROM memberships_read m JOIN users_read u ON u.id = m.user_id
         JOIN s ON s.organization_id = m.organization_id AND s.user_id = m.user_id
       WHERE ${orgEq(1, 'm')} AND m.user_id = $2`,
      [
        organizationId,
        userId,
        values.userName.toLowerCase(),
        values.externalId,
        values.givenName,
        values.familyName,
        values.displayName,
        JSON.stringify(values.directory),
        now,
        ...(also?.params ?? []),
      ],
    );
    return rows[0] ?? null;
  }

  async listGroups(
    organizationId: string,
    filter: Filter | null,
    window: ListWindow,
  ): Promise<{ rows: ScimGroupRow[]; total: number }> {
    const params: unknown[] = [organizationId];
    const where = `WHERE ${orgEq(1, 'c')}${filter ? ` AND ${compileScimFilter(filter, GROUP_ATTRIBUTES, params)}` : ''}`;
    return this.countAndPage<ScimGroupRow>(
      `SELECT count(*)::int AS n ${GROUP_FROM} ${where}`,
      `${GROUP_SELECT} ${where} ORDER BY c.created_at, c.id`,
      params,
      window,
    );
  }

  async findGroup(organizationId: string, cohortId: string, tx?: Tx): Promise<ScimGroupRow | null> {
    const rows = await db(this.dataSource, tx).query<ScimGroupRow[]>(
      `${GROUP_SELECT} WHERE ${orgEq(1, 'c')} AND c.id = $2`,
      [organizationId, cohortId],
    );
    return rows[0] ?? null;
  }

  /** Another cohort of the organization with this name (case-insensitive; cohorts_org_lower_name_idx). */
  async groupNameTaken(organizationId: string, name: string, exceptId: string | null, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<unknown[]>(
      `SELECT 1 FROM cohorts_read WHERE ${orgEq(1)} AND lower(name) = lower($2) AND ($3::uuid IS NULL OR id <> $3)
       LIMIT 1`,
      [organizationId, name, exceptId],
    );
    return rows.length > 0;
  }

  async groupMembers(organizationId: string, cohortIds: readonly string[], tx?: Tx): Promise<ScimGroupMemberRow[]> {
    if (cohortIds.length === 0) return [];
    return db(this.dataSource, tx).query<ScimGroupMemberRow[]>(
      `SELECT cm.cohort_id, cm.user_id, coalesce(s.display_name, u.name, u.email) AS display
       FROM cohort_members_read cm JOIN users_read u ON u.id = cm.user_id
       LEFT JOIN scim_members s ON s.organization_id = cm.organization_id AND s.user_id = cm.user_id
       WHERE ${orgEq(1, 'cm')} AND cm.cohort_id = ANY($2::uuid[]) ORDER BY cm.added_at, cm.user_id`,
      [organizationId, cohortIds],
    );
  }

  async upsertGroup(
    organizationId: string,
    cohortId: string,
    externalId: string | null,
    now: Date,
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO scim_groups (organization_id, cohort_id, external_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (organization_id, cohort_id) DO UPDATE SET external_id = $3, updated_at = $4`,
      [organizationId, cohortId, externalId, now],
    );
  }

  /** Members of the organization among these ids, with their role (a cohort place follows it). */
  async membersAmong(organizationId: string, userIds: readonly string[], tx?: Tx): Promise<Map<string, OrgRole>> {
    if (userIds.length === 0) return new Map();
    const rows = await db(this.dataSource, tx).query<{ user_id: string; role: OrgRole }[]>(
      `SELECT user_id, role FROM memberships_read WHERE ${orgEq(1)} AND user_id = ANY($2::uuid[])`,
      [organizationId, userIds],
    );
    return new Map(rows.map((r) => [r.user_id, r.role]));
  }

  /** Serializes group name changes per organization until the transaction ends. */
  async lockGroupNames(organizationId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('scim_groups:' || $1, 0))`, [organizationId]);
  }
}
