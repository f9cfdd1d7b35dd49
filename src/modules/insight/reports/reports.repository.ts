import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { DataSource, type QueryRunner } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';
import type { ReportFormat, ReportSeparator, ReportStatus, ReportType } from './report-types';

export interface ReportFilters {
  cohort_id?: string;
  course_id?: string;
  from?: string;
  to?: string;
}

export interface ReportRecordRow {
  id: string;
  organization_id: string;
  type: ReportType;
  format: ReportFormat;
  lang: 'es' | 'en';
  separator: ReportSeparator;
  filters: ReportFilters;
  status: ReportStatus;
  rows: number | null;
  size_bytes: string | null;
  error_code: string | null;
  file_key: string | null;
  requested_by: string | null;
  requester_name: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date | null;
}

/** What the query of a report selects: the organization, the filters, and the period as instants. */
export interface ReportScope {
  organizationId: string;
  cohortId: string | null;
  courseId: string | null;
  /** Inclusive start and exclusive end of the dated column, or null. */
  fromAt: Date | null;
  toAt: Date | null;
}

/** An open report query: one REPEATABLE READ snapshot. Close exactly once. */
export interface ReportCursor {
  rows(): Promise<Readable>;
  close(): Promise<void>;
}

const RECORD = `r.id, r.organization_id, r.type, r.format, r.lang, r.separator, r.filters, r.status, r.rows,
  r.size_bytes, r.error_code, r.file_key, r.requested_by, u.name AS requester_name, r.created_at, r.started_at,
  r.finished_at, r.expires_at`;
const FROM = `reports r LEFT JOIN users_read u ON u.id = r.requested_by`;

/** The cohort names of a person in the organization, `; `-separated (students' places). */
const COHORTS = (org: string, user: string): string =>
  `(SELECT string_agg(ch.name, '; ' ORDER BY ch.name) FROM cohort_members_read cm JOIN cohorts_read ch ON ch.id = cm.cohort_id
    WHERE cm.organization_id = ${org} AND cm.user_id = ${user} AND cm.role = 'student')`;

/** The person is a student of the cohort $2 (when given). */
const IN_COHORT = (user: string): string =>
  `($2::uuid IS NULL OR EXISTS (SELECT 1 FROM cohort_members_read f WHERE ${orgEq(1, 'f')} AND f.cohort_id = $2
    AND f.user_id = ${user} AND f.role = 'student'))`;

const PERIOD = (column: string): string =>
  `($4::timestamptz IS NULL OR ${column} >= $4) AND ($5::timestamptz IS NULL OR ${column} < $5)`;

/**
 * The SQL of each type: parameters $1 organization, $2 cohort, $3 course, $4 from, $5 to (exclusive); engagement
 * also $6 the organization's zone and $7 the instant the streaks are read at. Rows in a stable order (the dated
 * column, then the id).
 *
 * Engagement's XP, level and streak are gamification's (extensions-v2 3.1, 3.2, 3.4), read through what that area
 * publishes: `xp_totals_read` (the total and the level its ledger service stores by `levelOf`; a member without XP
 * has no row: 0 XP, level 1), `xp_ledger_read` (XP in the period: rows created in it, the leaderboard's counting)
 * and `gamification_streak_current` (the person's current streak as their own view shows it at $7: a lapsed run is 0).
 */
const QUERIES: Record<ReportType, string> = {
  progress: `
    SELECT e.user_id, u.name, u.email, ${COHORTS('e.organization_id', 'e.user_id')} AS cohorts, e.course_id,
      co.title AS course_title, e.enrolled_at, e.status,
      CASE WHEN lt.total = 0 THEN 0 ELSE round(100.0 * lc.done / lt.total)::int END AS percent,
      lc.done AS lessons_completed, lt.total AS lessons_total, e.completed_at, e.last_activity_at
    FROM enrollments_read e
    JOIN users_read u ON u.id = e.user_id
    JOIN courses_read co ON co.id = e.course_id
    CROSS JOIN LATERAL (SELECT count(*)::int AS total FROM lessons_read l WHERE l.course_id = e.course_id) lt
    CROSS JOIN LATERAL (SELECT count(*)::int AS done FROM lesson_completions_read x
      WHERE x.organization_id = e.organization_id AND x.user_id = e.user_id AND x.course_id = e.course_id) lc
    WHERE ${orgEq(1, 'e')} AND ${IN_COHORT('e.user_id')} AND ($3::uuid IS NULL OR e.course_id = $3)
      AND ${PERIOD('e.enrolled_at')}
    ORDER BY e.enrolled_at, e.id`,
  certificates: `
    SELECT c.code, c.status, c.type, c.holder_name, c.user_id, c.title, c.course_id, c.path_id, c.cohort_id,
      c.issued_at, c.revoked_at, c.revoke_reason, r.code AS replaced_by_code
    FROM issued_certificates_read c LEFT JOIN issued_certificates_read r ON r.id = c.replaced_by_id
    WHERE ${orgEq(1, 'c')} AND ${IN_COHORT('c.user_id')} AND ($3::uuid IS NULL OR c.course_id = $3)
      AND ${PERIOD('c.issued_at')}
    ORDER BY c.issued_at, c.id`,
  engagement: `
    SELECT m.user_id, u.name, u.email, m.role, ${COHORTS('m.organization_id', 'm.user_id')} AS cohorts,
      coalesce(xp.amount, 0) AS xp_in_period, coalesce(t.xp, 0)::int AS xp_total, coalesce(t.level, 1) AS level,
      gamification_streak_current(m.user_id, $7) AS streak_current,
      coalesce(a.active_days, 0) AS active_days_in_period, coalesce(a.lessons, 0) AS lessons_completed_in_period,
      coalesce(a.reviews, 0) AS reviews_in_period, to_char(la.last_hour AT TIME ZONE $6, 'YYYY-MM-DD') AS last_active_on
    FROM memberships_read m
    JOIN users_read u ON u.id = m.user_id
    LEFT JOIN xp_totals_read t ON t.organization_id = m.organization_id AND t.user_id = m.user_id
    LEFT JOIN LATERAL (SELECT sum(x.amount)::int AS amount FROM xp_ledger_read x
      WHERE x.organization_id = m.organization_id AND x.user_id = m.user_id AND ${PERIOD('x.created_at')}) xp ON true
    LEFT JOIN LATERAL (SELECT count(DISTINCT (h.hour AT TIME ZONE $6)::date)::int AS active_days,
        sum(h.lessons_completed)::int AS lessons, sum(h.reviews)::int AS reviews
      FROM learning_activity_hourly_read h
      WHERE h.organization_id = m.organization_id AND h.user_id = m.user_id AND ${PERIOD('h.hour')}) a ON true
    LEFT JOIN LATERAL (SELECT max(h.hour) AS last_hour FROM learning_activity_hourly_read h
      WHERE h.organization_id = m.organization_id AND h.user_id = m.user_id) la ON true
    WHERE ${orgEq(1, 'm')} AND ${IN_COHORT('m.user_id')}
      AND ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM enrollments_read ce WHERE ${orgEq(1, 'ce')}
        AND ce.user_id = m.user_id AND ce.course_id = $3))
    ORDER BY m.joined_at, m.user_id`,
  exams: `
    SELECT s.user_id, u.name, u.email, ${COHORTS('s.organization_id', 's.user_id')} AS cohorts,
      co.title AS course_title, ex.title AS exam_title, s.attempt, s.started_at, s.submitted_at, s.submitted_by,
      s.score, s.passed, s.flagged,
      (SELECT string_agg(f->>'code', '; ' ORDER BY ord) FROM jsonb_array_elements(s.flags) WITH ORDINALITY AS t(f, ord))
        AS flags,
      s.review_status
    FROM exam_sessions_read s
    JOIN users_read u ON u.id = s.user_id
    JOIN exams_read ex ON ex.id = s.exam_id
    JOIN courses_read co ON co.id = s.course_id
    WHERE ${orgEq(1, 's')} AND ${IN_COHORT('s.user_id')} AND ($3::uuid IS NULL OR s.course_id = $3)
      AND ${PERIOD('s.started_at')}
    ORDER BY s.started_at, s.id`,
  lti_results: `
    SELECT r.user_id, u.email, x.course_id, i.lesson_id, i.label AS line_item_label, r.score_given AS score,
      r.score_maximum, r.activity_progress, r.grading_progress, r.updated_at
    FROM lti_results_read r
    JOIN lti_line_items_read i ON i.id = r.line_item_id
    JOIN lti_contexts_read x ON x.id = i.context_id
    JOIN users_read u ON u.id = r.user_id
    WHERE ${orgEq(1, 'r')} AND ${IN_COHORT('r.user_id')} AND ($3::uuid IS NULL OR x.course_id = $3)
      AND ${PERIOD('r.updated_at')}
    ORDER BY r.updated_at, r.line_item_id, r.user_id`,
};

@Injectable()
export class ReportsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    values: {
      organizationId: string;
      type: ReportType;
      format: ReportFormat;
      lang: 'es' | 'en';
      separator: ReportSeparator;
      filters: ReportFilters;
      requestedBy: string;
      now: Date;
    },
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO reports (organization_id, type, format, lang, separator, filters, requested_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [
        values.organizationId,
        values.type,
        values.format,
        values.lang,
        values.separator,
        JSON.stringify(values.filters),
        values.requestedBy,
        values.now,
      ],
    );
    return rows[0].id;
  }

  async find(organizationId: string, id: string, tx?: Tx): Promise<ReportRecordRow | null> {
    const rows = await db(this.dataSource, tx).query<ReportRecordRow[]>(
      `SELECT ${RECORD} FROM ${FROM} WHERE ${orgEq(1, 'r')} AND r.id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async list(
    organizationId: string,
    filter: { requestedBy: string | null; type?: string; status?: string; limit: number; offset: number },
  ): Promise<{ rows: ReportRecordRow[]; total: number }> {
    const where = `${orgEq(1, 'r')} AND ($2::uuid IS NULL OR r.requested_by = $2)
      AND ($3::text IS NULL OR r.type = $3) AND ($4::text IS NULL OR r.status = $4)`;
    const params = [organizationId, filter.requestedBy, filter.type ?? null, filter.status ?? null];
    const [rows, total] = await Promise.all([
      this.dataSource.query<ReportRecordRow[]>(
        `SELECT ${RECORD} FROM ${FROM} WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT $5 OFFSET $6`,
        [...params, filter.limit, filter.offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM reports r WHERE ${where}`, params),
    ]);
    return { rows, total: total[0].n };
  }

  /** queued -> running; null when the report is gone or already past running (a repeated job). */
  async start(organizationId: string, id: string, now: Date): Promise<ReportRecordRow | null> {
    const [rows] = await this.dataSource.query<[{ id: string }[], number]>(
      `UPDATE reports SET status = 'running', started_at = $3
       WHERE ${orgEq(1)} AND id = $2 AND status IN ('queued', 'running') RETURNING id`,
      [organizationId, id, now],
    );
    if (rows.length === 0) return null;
    return this.find(organizationId, id);
  }

  async complete(
    organizationId: string,
    id: string,
    values: { rows: number; sizeBytes: number; fileKey: string; finishedAt: Date; expiresAt: Date },
    tx: Tx,
  ): Promise<boolean> {
    const [rows] = await tx.manager.query<[{ id: string }[], number]>(
      `UPDATE reports SET status = 'completed', rows = $3, size_bytes = $4, file_key = $5, finished_at = $6,
         expires_at = $7, error_code = NULL
       WHERE ${orgEq(1)} AND id = $2 AND status = 'running' RETURNING id`,
      [organizationId, id, values.rows, values.sizeBytes, values.fileKey, values.finishedAt, values.expiresAt],
    );
    return rows.length > 0;
  }

  async fail(organizationId: string, id: string, errorCode: string, now: Date, tx: Tx): Promise<boolean> {
    const [rows] = await tx.manager.query<[{ id: string }[], number]>(
      `UPDATE reports SET status = 'failed', error_code = $3, finished_at = $4
       WHERE ${orgEq(1)} AND id = $2 AND status IN ('queued', 'running') RETURNING id`,
      [organizationId, id, errorCode, now],
    );
    return rows.length > 0;
  }

  /** completed -> expired; the file key to delete, or null when it was not completed. */
  async expire(organizationId: string, id: string): Promise<string | null> {
    const [rows] = await this.dataSource.query<[{ file_key: string | null }[], number]>(
      `UPDATE reports r SET status = 'expired', file_key = NULL
       FROM reports old WHERE old.id = r.id AND ${orgEq(1, 'r')} AND r.id = $2 AND r.status = 'completed'
       RETURNING old.file_key`,
      [organizationId, id],
    );
    return rows[0]?.file_key ?? null;
  }

  /** Completed reports past their expiry (the schedule's batch). */
  async dueForExpiry(now: Date, limit: number): Promise<{ id: string; organization_id: string }[]> {
    return this.dataSource.query(
      `${tenancyExempt('cross-organization-job')} SELECT id, organization_id FROM reports WHERE status = 'completed' AND expires_at <= $1
       ORDER BY expires_at LIMIT $2`,
      [now, limit],
    );
  }

  /** Deletes the record; the file key it had, or undefined when there was none to delete. */
  async delete(organizationId: string, id: string): Promise<{ file_key: string | null } | undefined> {
    const [rows] = await this.dataSource.query<[{ file_key: string | null }[], number]>(
      `DELETE FROM reports WHERE ${orgEq(1)} AND id = $2 RETURNING file_key`,
      [organizationId, id],
    );
    return rows[0];
  }

  /** Whether the cohort is in the organization, and whether `userId` teaches it. */
  async cohort(organizationId: string, cohortId: string, userId: string): Promise<{ teaches: boolean } | null> {
    const rows = await this.dataSource.query<{ teaches: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM cohort_members_read cm WHERE cm.cohort_id = c.id AND cm.user_id = $3
         AND cm.role = 'teacher') AS teaches
       FROM cohorts_read c WHERE ${orgEq(1, 'c')} AND c.id = $2`,
      [organizationId, cohortId, userId],
    );
    return rows[0] ?? null;
  }

  /** Whether the course is reachable in the organization (linked to it, or enrolled in by a member). */
  async courseExists(organizationId: string, courseId: string): Promise<boolean> {
    const rows = await this.dataSource.query<{ ok: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM courses_read c WHERE c.id = $2 AND (c.visibility = 'public'
         OR EXISTS (SELECT 1 FROM course_organizations_read co WHERE co.course_id = c.id AND ${orgEq(1, 'co')})
         OR EXISTS (SELECT 1 FROM enrollments_read e WHERE e.course_id = c.id AND ${orgEq(1, 'e')}))) AS ok`,
      [organizationId, courseId],
    );
    return rows[0].ok;
  }

  /**
   * Opens the report's query on a connection of its own, in one REPEATABLE READ snapshot (the count that decides
   * `report_too_large` and the rows agree). Rows come from a server-side cursor (pg-query-stream).
   */
  async open(type: ReportType, scope: ReportScope, timeZone: string, now: Date): Promise<ReportCursor> {
    const sql = QUERIES[type];
    const params: unknown[] = [scope.organizationId, scope.cohortId, scope.courseId, scope.fromAt, scope.toAt];
    if (type === 'engagement') params.push(timeZone, now);
    const runner: QueryRunner = this.dataSource.createQueryRunner();
    await runner.connect();
    let open = true;
    try {
      await runner.startTransaction('REPEATABLE READ');
      await runner.query(`SET TRANSACTION READ ONLY`);
      // A report streams for minutes: the service's per-statement limits are for requests, not for this cursor.
      await runner.query(`SET LOCAL statement_timeout = 0`);
      await runner.query(`SET LOCAL idle_in_transaction_session_timeout = '10min'`);
    } catch (err) {
      await runner.release();
      throw err;
    }
    return {
      rows: async () => runner.stream(sql, params),
      close: async () => {
        if (!open) return;
        open = false;
        try {
          if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        } finally {
          await runner.release();
        }
      },
    };
  }
}

/** The SQL of a report type (the benchmark compares it with `COPY`). */
export function reportQuery(type: ReportType): string {
  return QUERIES[type];
}
