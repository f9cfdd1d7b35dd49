import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Membership, OrgRole } from '@/core/auth/tenancy';
import type { Tx } from '@/core/database/transaction';
import type { Locale } from '@/core/mail/mail-template';
import type { AnnouncementStatus, Severity } from './dto/announcement.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export type Translations = Partial<Record<Locale, { title: string; body_md: string }>>;

export interface AnnouncementRow {
  id: string;
  organization_id: string | null;
  translations: Translations;
  severity: Severity;
  audience_roles: OrgRole[];
  audience_organization_ids: string[];
  audience_cohort_ids: string[];
  starts_at: Date;
  ends_at: Date | null;
  dismissible: boolean;
  email: boolean;
  emailed_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The writable columns. */
export interface AnnouncementValues {
  translations: Translations;
  severity: Severity;
  audience_roles: OrgRole[];
  audience_organization_ids: string[];
  audience_cohort_ids: string[];
  starts_at: Date;
  ends_at: Date | null;
  dismissible: boolean;
  email: boolean;
}

/** Where announcements live: the platform (`null`) or one organization. Every query takes it. */
export type ScopeId = string | null;

/** Who reads, and in which organization (null: none; only announcements for everyone reach them). */
export interface ReaderContext {
  userId: string;
  organizationId: string | null;
  role: OrgRole | null;
  cohortIds: string[];
}

const COLUMNS = `id, organization_id, translations, severity, audience_roles, audience_organization_ids,
  audience_cohort_ids, starts_at, ends_at, dismissible, email, emailed_at, created_by, created_at, updated_at`;

/** Most important first, then the newest start (extensions-v2 18). */
const READER_ORDER = `CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, starts_at DESC, id DESC`;

/** Inside the window at $2. */
const LIVE = `starts_at <= $2 AND (ends_at IS NULL OR ends_at > $2)`;

/** The rows of one scope, written so that each reads its partial index (`IS NOT DISTINCT FROM` would not). */
function scopeCondition(scope: ScopeId): string {
  return scope === null
    ? `${tenancyExempt('platform-admin')} $1::uuid IS NULL AND organization_id IS NULL`
    : `${orgEq(1)}::uuid`;
}

@Injectable()
export class AnnouncementsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    scope: ScopeId,
    values: AnnouncementValues,
    createdBy: string,
    now: Date,
    tx: Tx,
  ): Promise<AnnouncementRow> {
    const rows = await tx.manager.query<AnnouncementRow[]>(
      `INSERT INTO announcements (organization_id, translations, severity, audience_roles, audience_organization_ids,
         audience_cohort_ids, starts_at, ends_at, dismissible, email, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
       RETURNING ${COLUMNS}`,
      [
        scope,
        JSON.stringify(values.translations),
        values.severity,
        values.audience_roles,
        values.audience_organization_ids,
        values.audience_cohort_ids,
        values.starts_at,
        values.ends_at,
        values.dismissible,
        values.email,
        createdBy,
        now,
      ],
    );
    return rows[0];
  }

  async update(scope: ScopeId, id: string, values: AnnouncementValues, now: Date, tx: Tx): Promise<AnnouncementRow> {
    const [rows] = await tx.manager.query<[AnnouncementRow[], number]>(
      `UPDATE announcements SET translations = $3, severity = $4, audience_roles = $5, audience_organization_ids = $6,
         audience_cohort_ids = $7, starts_at = $8, ends_at = $9, dismissible = $10, email = $11, updated_at = $12
       WHERE ${scopeCondition(scope)} AND id = $2
       RETURNING ${COLUMNS}`,
      [
        scope,
        id,
        JSON.stringify(values.translations),
        values.severity,
        values.audience_roles,
        values.audience_organization_ids,
        values.audience_cohort_ids,
        values.starts_at,
        values.ends_at,
        values.dismissible,
        values.email,
        now,
      ],
    );
    return rows[0];
  }

  async find(scope: ScopeId, id: string, tx?: Tx): Promise<AnnouncementRow | null> {
    const rows = await db(this.dataSource, tx).query<AnnouncementRow[]>(
      `SELECT ${COLUMNS} FROM announcements WHERE ${scopeCondition(scope)} AND id = $2`,
      [scope, id],
    );
    return rows[0] ?? null;
  }

  /** The row, locked until the transaction ends (edits, and the email job deciding to send). */
  async findForUpdate(scope: ScopeId, id: string, tx: Tx): Promise<AnnouncementRow | null> {
    const rows = await tx.manager.query<AnnouncementRow[]>(
      `SELECT ${COLUMNS} FROM announcements WHERE ${scopeCondition(scope)} AND id = $2 FOR UPDATE`,
      [scope, id],
    );
    return rows[0] ?? null;
  }

  /** Any scope: what the reader routes look up before checking that the caller is in the audience. */
  async findAnyScope(id: string): Promise<AnnouncementRow | null> {
    const rows = await this.dataSource.query<AnnouncementRow[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT ${COLUMNS} FROM announcements WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async delete(scope: ScopeId, id: string, tx: Tx): Promise<AnnouncementRow | null> {
    const [rows] = await tx.manager.query<[AnnouncementRow[], number]>(
      `DELETE FROM announcements WHERE ${scopeCondition(scope)} AND id = $2 RETURNING ${COLUMNS}`,
      [scope, id],
    );
    return rows[0] ?? null;
  }

  /**
   * How many other announcements of the organization are emailed on the UTC day of `at` (sent: the day they went;
   * not yet: the day of their start), after taking the organization's email lock for the rest of the transaction
   * (two requests cannot both take the last place).
   */
  async emailedOnDay(organizationId: string, at: Date, exceptId: string | null, tx: Tx): Promise<number> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('announcement-email:' || $1, 0))`, [
      organizationId,
    ]);
    const rows = await tx.manager.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM announcements
       WHERE ${orgEq(1)} AND email AND ($3::uuid IS NULL OR id <> $3)
         AND COALESCE(emailed_at, starts_at) >= date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
         AND COALESCE(emailed_at, starts_at) < (date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC'`,
      [organizationId, at, exceptId],
    );
    return rows[0].n;
  }

  async markEmailed(id: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE announcements SET emailed_at = $2 WHERE id = $1`,
      [id, now],
    );
  }

  /**
   * A page of one scope's announcements, newest start first, optionally of one status at `now`. Served by
   * `announcements_platform_idx` / `announcements_org_idx` (scope, starts_at) and `announcements_ends_idx` (ended).
   */
  async list(
    scope: ScopeId,
    status: AnnouncementStatus | undefined,
    now: Date,
    page: { limit: number; offset: number },
  ): Promise<{ rows: AnnouncementRow[]; total: number }> {
    const statusCondition = {
      scheduled: 'AND starts_at > $2',
      active: `AND ${LIVE}`,
      ended: 'AND ends_at <= $2',
      all: 'AND $2::timestamptz IS NOT NULL',
    }[status ?? 'all'];
    const where = `${scopeCondition(scope)} ${statusCondition}`;
    const [rows, count] = await Promise.all([
      this.dataSource.query<AnnouncementRow[]>(
        `SELECT ${COLUMNS} FROM announcements WHERE ${where} ORDER BY starts_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [scope, now, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(`SELECT count(*)::int AS total FROM announcements WHERE ${where}`, [
        scope,
        now,
      ]),
    ]);
    return { rows, total: count[0].total };
  }

  /**
   * What a reader sees at `now` (extensions-v2 18): platform announcements whose audience includes the reader's
   * organization and role there (an empty list is everyone; a reader in no organization only sees those for
   * everyone), plus their organization's announcements for their role and cohorts; inside the window and not
   * dismissed. Each branch reads its own partial index.
   */
  async current(reader: ReaderContext, now: Date, limit: number): Promise<AnnouncementRow[]> {
    return this.dataSource.query<AnnouncementRow[]>(
      `SELECT ${COLUMNS} FROM (
         SELECT * FROM announcements
         WHERE organization_id IS NULL AND ${LIVE}
           AND (cardinality(audience_organization_ids) = 0 OR $3::uuid = ANY(audience_organization_ids))
           AND (cardinality(audience_roles) = 0 OR $4::text = ANY(audience_roles))
         UNION ALL
         SELECT * FROM announcements
         WHERE NOT ($3::uuid IS NULL) AND ${orgEq(3)}::uuid AND ${LIVE}
           AND (cardinality(audience_roles) = 0 OR $4::text = ANY(audience_roles))
           AND (cardinality(audience_cohort_ids) = 0 OR audience_cohort_ids && $5::uuid[])
       ) a
       WHERE NOT EXISTS (SELECT 1 FROM announcement_dismissals d WHERE d.user_id = $1 AND d.announcement_id = a.id)
       ORDER BY ${READER_ORDER} LIMIT $6`,
      [reader.userId, now, reader.organizationId, reader.role, reader.cohortIds, limit],
    );
  }

  /**
   * Whether a platform announcement is shown to a person with these memberships at `now` (dismissed or not): its
   * audience is everyone, or one membership is in its organizations and roles.
   */
  async platformShownTo(id: string, memberships: readonly Membership[], now: Date): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT 1 FROM announcements a
       WHERE a.id = $1 AND a.organization_id IS NULL AND a.starts_at <= $2 AND (a.ends_at IS NULL OR a.ends_at > $2)
         AND ((cardinality(a.audience_organization_ids) = 0 AND cardinality(a.audience_roles) = 0)
           OR EXISTS (
             SELECT 1 FROM unnest($3::uuid[], $4::text[]) AS m(organization_id, role)
             WHERE (cardinality(a.audience_organization_ids) = 0 OR m.organization_id = ANY(a.audience_organization_ids))
               AND (cardinality(a.audience_roles) = 0 OR m.role = ANY(a.audience_roles))))`,
      [id, now, memberships.map((m) => m.organizationId), memberships.map((m) => m.role)],
    );
    return rows.length > 0;
  }

  /** Whether an organization announcement is shown to this member (role, cohorts) at `now`, dismissed or not. */
  async organizationShownTo(id: string, reader: ReaderContext, now: Date): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM announcements
       WHERE id = $1 AND ${orgEq(3)}::uuid AND ${LIVE}
         AND (cardinality(audience_roles) = 0 OR $4::text = ANY(audience_roles))
         AND (cardinality(audience_cohort_ids) = 0 OR audience_cohort_ids && $5::uuid[])`,
      [id, now, reader.organizationId, reader.role, reader.cohortIds],
    );
    return rows.length > 0;
  }

  /** Idempotent: a second dismissal keeps the first one's time. */
  async dismiss(userId: string, announcementId: string, organizationId: string | null, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO announcement_dismissals (user_id, announcement_id, organization_id, dismissed_at)
       VALUES ($1, $2, $3, $4) ON CONFLICT (user_id, announcement_id) DO NOTHING`,
      [userId, announcementId, organizationId, now],
    );
  }
}
