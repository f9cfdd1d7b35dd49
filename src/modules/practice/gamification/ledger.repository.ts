import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { CountedFact, XpSource } from './xp-rules';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface LedgerInsert {
  organizationId: string;
  userId: string;
  source: XpSource;
  sourceId: string;
  amount: number;
  localDate: string;
  occurredAt: Date;
}

export interface LedgerRow {
  organization_id: string;
  user_id: string;
  source: XpSource;
  source_id: string;
  amount: number;
  local_date: string;
  created_at: Date;
}

export interface ActivityDelta {
  userId: string;
  organizationId: string;
  localDate: string;
  xp: number;
  xpLearning: number;
  lessons_completed: number;
  quiz_submissions: number;
  reviews: number;
  exams_submitted: number;
  games_finished: number;
  duels_finished: number;
  duels_won: number;
  active: boolean;
}

export interface BadgeInsert {
  organizationId: string;
  userId: string;
  code: string;
}

const COUNTERS = [
  'lessons_completed',
  'quiz_submissions',
  'reviews',
  'exams_submitted',
  'games_finished',
  'duels_finished',
  'duels_won',
] as const;

/**
 * The XP ledger and what is derived from it in the same transaction: totals per member, per-day activity, and
 * system badges. Set-based (one statement per step for a whole batch of events): the engagement issue asks for
 * 5 000 events a second on one worker.
 */
@Injectable()
export class LedgerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every organization with XP, for a rebuild of all leaderboards. */
  async organizationsWithXp(): Promise<string[]> {
    const rows = await this.dataSource.query<{ organization_id: string }[]>(
      `${tenancyExempt('cross-organization-job')} SELECT DISTINCT organization_id FROM xp_totals ORDER BY organization_id`,
    );
    return rows.map((r) => r.organization_id);
  }

  /** Time zones of people (the users area's column, read here for a whole batch in one statement). */
  async userZones(userIds: readonly string[], tx?: Tx): Promise<Map<string, string>> {
    if (userIds.length === 0) return new Map();
    const rows = await db(this.dataSource, tx).query<{ id: string; time_zone: string }[]>(
      `SELECT id, time_zone FROM users_read WHERE id = ANY($1::uuid[])`,
      [userIds],
    );
    return new Map(rows.map((r) => [r.id, r.time_zone]));
  }

  /** Time zones of organizations (leaderboard periods are the organization's, 2.3). */
  async organizationZones(ids: readonly string[], tx?: Tx): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await db(this.dataSource, tx).query<{ id: string; time_zone: string }[]>(
      `SELECT id, time_zone FROM organizations_read WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.time_zone]));
  }

  /** Which of these source keys are already in the ledger (a redelivered or repeated fact). */
  async existingKeys(candidates: readonly LedgerInsert[], tx: Tx): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const rows = await tx.manager.query<{ k: string }[]>(
      `${tenancyExempt('cross-organization-job')} SELECT l.organization_id || '|' || l.user_id || '|' || l.source || ':' || l.source_id AS k
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS c(organization_id, user_id, source, source_id)
       JOIN xp_ledger l ON l.organization_id = c.organization_id AND l.user_id = c.user_id
         AND l.source = c.source AND l.source_id = c.source_id`,
      [
        candidates.map((c) => c.organizationId),
        candidates.map((c) => c.userId),
        candidates.map((c) => c.source),
        candidates.map((c) => c.sourceId),
      ],
    );
    return new Set(rows.map((r) => r.k));
  }

  /** XP already written per (organization, person, local date, capped source). */
  async daySums(
    keys: readonly { organizationId: string; userId: string; localDate: string; source: XpSource }[],
    tx: Tx,
  ): Promise<Map<string, number>> {
    if (keys.length === 0) return new Map();
    // Concurrent deliveries for one person and day (two workers) must not both see room under the cap: the
    // transaction holds a lock per (organization, person, date, source) until it commits, taken in one order.
    const lockKeys = [...new Set(keys.map((k) => `${k.organizationId}|${k.userId}|${k.localDate}|${k.source}`))].sort();
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k`, [
      lockKeys,
    ]);
    const rows = await tx.manager.query<{ k: string; total: number }[]>(
      `${tenancyExempt('cross-organization-job')} SELECT c.organization_id || '|' || c.user_id || '|' || c.local_date || '|' || c.source AS k,
         coalesce((SELECT sum(l.amount) FROM xp_ledger l WHERE l.organization_id = c.organization_id
           AND l.user_id = c.user_id AND l.local_date = c.local_date AND l.source = c.source), 0)::int AS total
       FROM (SELECT DISTINCT * FROM unnest($1::uuid[], $2::uuid[], $3::date[], $4::text[])
         AS u(organization_id, user_id, local_date, source)) c`,
      [
        keys.map((k) => k.organizationId),
        keys.map((k) => k.userId),
        keys.map((k) => k.localDate),
        keys.map((k) => k.source),
      ],
    );
    return new Map(rows.map((r) => [r.k, r.total]));
  }

  /** Writes the rows of current members (others are skipped: the ledger references the membership). */
  async insert(rows: readonly LedgerInsert[], now: Date, tx: Tx): Promise<LedgerRow[]> {
    if (rows.length === 0) return [];
    return tx.manager.query<LedgerRow[]>(
      `${tenancyExempt('cross-organization-job')} INSERT INTO xp_ledger (organization_id, user_id, source, source_id, amount, local_date, occurred_at, created_at)
       SELECT c.organization_id, c.user_id, c.source, c.source_id, c.amount, c.local_date, c.occurred_at, $8
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int[], $6::date[], $7::timestamptz[])
         AS c(organization_id, user_id, source, source_id, amount, local_date, occurred_at)
       WHERE EXISTS (SELECT 1 FROM memberships_read m WHERE m.organization_id = c.organization_id AND m.user_id = c.user_id)
       ON CONFLICT (organization_id, user_id, source, source_id) DO NOTHING
       RETURNING organization_id, user_id, source, source_id, amount, to_char(local_date, 'YYYY-MM-DD') AS local_date,
         created_at`,
      [
        rows.map((r) => r.organizationId),
        rows.map((r) => r.userId),
        rows.map((r) => r.source),
        rows.map((r) => r.sourceId),
        rows.map((r) => r.amount),
        rows.map((r) => r.localDate),
        rows.map((r) => r.occurredAt),
        now,
      ],
    );
  }

  /** Adds to the members' totals; answers the totals after. */
  async addToTotals(
    adds: readonly { organizationId: string; userId: string; xp: number }[],
    now: Date,
    tx: Tx,
  ): Promise<{ organization_id: string; user_id: string; xp: number; level: number }[]> {
    if (adds.length === 0) return [];
    const rows = await tx.manager.query<{ organization_id: string; user_id: string; xp: string; level: number }[]>(
      `INSERT INTO xp_totals (organization_id, user_id, xp, level, updated_at)
       SELECT c.organization_id, c.user_id, c.xp, 1, $4
       FROM unnest($1::uuid[], $2::uuid[], $3::bigint[]) AS c(organization_id, user_id, xp)
       ORDER BY c.organization_id, c.user_id
       ON CONFLICT (organization_id, user_id) DO UPDATE SET xp = xp_totals.xp + EXCLUDED.xp, updated_at = EXCLUDED.updated_at
       RETURNING organization_id, user_id, xp, level`,
      [adds.map((a) => a.organizationId), adds.map((a) => a.userId), adds.map((a) => a.xp), now],
    );
    return rows.map((r) => ({ ...r, xp: Number(r.xp) }));
  }

  async setLevels(rows: readonly { organizationId: string; userId: string; level: number }[], tx: Tx): Promise<void> {
    if (rows.length === 0) return;
    await tx.manager.query(
      `${tenancyExempt('cross-organization-job')} UPDATE xp_totals t SET level = c.level
       FROM unnest($1::uuid[], $2::uuid[], $3::int[]) AS c(organization_id, user_id, level)
       WHERE t.organization_id = c.organization_id AND t.user_id = c.user_id`,
      [rows.map((r) => r.organizationId), rows.map((r) => r.userId), rows.map((r) => r.level)],
    );
  }

  /** Adds to the per-day counters of each (person, local date, organization). */
  async addActivity(deltas: readonly ActivityDelta[], tx: Tx): Promise<void> {
    if (deltas.length === 0) return;
    const cols = COUNTERS.map((c) => `${c} = activity_days.${c} + EXCLUDED.${c}`).join(', ');
    await tx.manager.query(
      `INSERT INTO activity_days (user_id, organization_id, local_date, xp, xp_learning, ${COUNTERS.join(', ')}, active)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::date[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[],
         $9::int[], $10::int[], $11::int[], $12::int[], $13::bool[])
       ORDER BY 1, 3, 2
       ON CONFLICT (user_id, local_date, organization_id) DO UPDATE SET xp = activity_days.xp + EXCLUDED.xp,
         xp_learning = activity_days.xp_learning + EXCLUDED.xp_learning, ${cols},
         active = activity_days.active OR EXCLUDED.active`,
      [
        deltas.map((d) => d.userId),
        deltas.map((d) => d.organizationId),
        deltas.map((d) => d.localDate),
        deltas.map((d) => d.xp),
        deltas.map((d) => d.xpLearning),
        ...COUNTERS.map((c) => deltas.map((d) => d[c])),
        deltas.map((d) => d.active),
      ],
    );
  }

  /** Counted facts of current members, once each (challenges count them, 5.6). */
  async addFacts(facts: readonly CountedFact[], tx: Tx): Promise<void> {
    if (facts.length === 0) return;
    await tx.manager.query(
      `${tenancyExempt('cross-organization-job')} INSERT INTO engagement_facts (organization_id, user_id, kind, subject_id, course_id, occurred_at)
       SELECT c.* FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::timestamptz[])
         AS c(organization_id, user_id, kind, subject_id, course_id, occurred_at)
       WHERE EXISTS (SELECT 1 FROM memberships_read m WHERE m.organization_id = c.organization_id AND m.user_id = c.user_id)
       ON CONFLICT DO NOTHING`,
      [
        facts.map((f) => f.organizationId),
        facts.map((f) => f.userId),
        facts.map((f) => f.kind),
        facts.map((f) => f.subjectId),
        facts.map((f) => f.courseId),
        facts.map((f) => f.occurredAt),
      ],
    );
  }

  /** Per member of the batch: counts the counted badges need (5.2). */
  async badgeCounts(
    members: readonly { organizationId: string; userId: string }[],
    tx: Tx,
  ): Promise<{ organization_id: string; user_id: string; courses: number; reviews: number; duels_won: number }[]> {
    if (members.length === 0) return [];
    return tx.manager.query(
      `${tenancyExempt('cross-organization-job')} SELECT c.organization_id, c.user_id,
         (SELECT count(*) FROM xp_ledger l WHERE l.organization_id = c.organization_id AND l.user_id = c.user_id
           AND l.source = 'course')::int AS courses,
         coalesce((SELECT sum(a.reviews) FROM activity_days a WHERE a.organization_id = c.organization_id
           AND a.user_id = c.user_id), 0)::int AS reviews,
         coalesce((SELECT sum(a.duels_won) FROM activity_days a WHERE a.organization_id = c.organization_id
           AND a.user_id = c.user_id), 0)::int AS duels_won
       FROM (SELECT DISTINCT * FROM unnest($1::uuid[], $2::uuid[]) AS u(organization_id, user_id)) c`,
      [members.map((m) => m.organizationId), members.map((m) => m.userId)],
    );
  }

  /** Awards system badges to current members, once; answers those newly awarded. */
  async awardBadges(badges: readonly BadgeInsert[], now: Date, tx: Tx): Promise<BadgeInsert[]> {
    if (badges.length === 0) return [];
    const rows = await tx.manager.query<{ organization_id: string; user_id: string; code: string }[]>(
      `${tenancyExempt('cross-organization-job')} INSERT INTO badge_awards (organization_id, user_id, code, kind, name, icon, awarded_at)
       SELECT DISTINCT c.organization_id, c.user_id, c.code, 'system', c.code, c.code, $4::timestamptz
       FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS c(organization_id, user_id, code)
       WHERE EXISTS (SELECT 1 FROM memberships_read m WHERE m.organization_id = c.organization_id AND m.user_id = c.user_id)
       ON CONFLICT (organization_id, user_id, code) DO NOTHING
       RETURNING organization_id, user_id, code`,
      [badges.map((b) => b.organizationId), badges.map((b) => b.userId), badges.map((b) => b.code), now],
    );
    return rows.map((r) => ({ organizationId: r.organization_id, userId: r.user_id, code: r.code }));
  }

  async existingBadges(badges: readonly BadgeInsert[], tx: Tx): Promise<BadgeInsert[]> {
    if (badges.length === 0) return [];
    const rows = await tx.manager.query<{ organization_id: string; user_id: string; code: string }[]>(
      `${tenancyExempt('cross-organization-job')} SELECT DISTINCT b.organization_id, b.user_id, b.code
       FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS c(organization_id, user_id, code)
       JOIN badge_awards b ON b.organization_id = c.organization_id AND b.user_id = c.user_id AND b.code = c.code`,
      [badges.map((b) => b.organizationId), badges.map((b) => b.userId), badges.map((b) => b.code)],
    );
    return rows.map((r) => ({ organizationId: r.organization_id, userId: r.user_id, code: r.code }));
  }

  // Reads.

  async total(organizationId: string, userId: string, tx?: Tx): Promise<number> {
    const rows = await db(this.dataSource, tx).query<{ xp: string }[]>(
      `SELECT xp FROM xp_totals WHERE ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId],
    );
    return rows.length ? Number(rows[0].xp) : 0;
  }

  /** XP of a member in `[from, to)` by the ledger's `created_at` (the leaderboard's counting). */
  async xpBetween(organizationId: string, userId: string, from: Date, to: Date | null): Promise<number> {
    const rows = await this.dataSource.query<{ xp: number }[]>(
      `SELECT coalesce(sum(amount), 0)::int AS xp FROM xp_ledger
       WHERE ${orgEq(1)} AND user_id = $2 AND created_at >= $3 AND ($4::timestamptz IS NULL OR created_at < $4)`,
      [organizationId, userId, from, to],
    );
    return rows[0].xp;
  }

  /** XP of the person's local date (all sources), in one organization or every one. */
  async xpOnDate(userId: string, date: string, organizationId: string | null): Promise<number> {
    const rows = await this.dataSource.query<{ xp: number }[]>(
      `SELECT coalesce(sum(xp), 0)::int AS xp FROM activity_days
       WHERE user_id = $1 AND local_date = $2 AND ($3::uuid IS NULL OR ${orgEq(3)})`,
      [userId, date, organizationId],
    );
    return rows[0].xp;
  }

  async history(
    organizationId: string,
    userId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: (LedgerRow & { id: string; subject: string | null })[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.dataSource.query<(LedgerRow & { id: string; subject: string | null })[]>(
        // The subject's title for the label: the catalog's lessons, courses, paths and exams (read-only).
        `SELECT l.id, l.source, l.source_id, l.amount, l.created_at,
           CASE l.source
             WHEN 'lesson' THEN (SELECT title FROM lessons_read WHERE id::text = l.source_id)
             WHEN 'quiz_pass' THEN (SELECT title FROM lessons_read WHERE id::text = l.source_id)
             WHEN 'course' THEN (SELECT title FROM courses_read WHERE id::text = l.source_id)
             WHEN 'program' THEN (SELECT title FROM learning_paths_read WHERE id::text = l.source_id)
             WHEN 'capstone' THEN (SELECT title FROM learning_paths_read WHERE id::text = l.source_id)
             WHEN 'exam_pass' THEN (SELECT title FROM exams_read WHERE id::text = l.source_id)
             WHEN 'challenge' THEN (SELECT title FROM challenges WHERE id::text = l.source_id)
             ELSE NULL END AS subject
         FROM xp_ledger l WHERE ${orgEq(1, 'l')} AND l.user_id = $2
         ORDER BY l.created_at DESC, l.id DESC LIMIT $3 OFFSET $4`,
        [organizationId, userId, limit, offset],
      ),
      this.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM xp_ledger WHERE ${orgEq(1)} AND user_id = $2`,
        [organizationId, userId],
      ),
    ]);
    return { rows, total: count[0].n };
  }
}
