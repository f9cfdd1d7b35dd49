import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { EMPTY_STREAK, type StreakState } from './streak-rules';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

interface StreakRow {
  run_count: number;
  run_last: string | null;
  longest: number;
  freezes: number;
  first_active_on: string | null;
  last_active_on: string | null;
  evaluated_through: string | null;
  grants_through: string | null;
}

const DATE = (c: string): string => `to_char(${c}, 'YYYY-MM-DD') AS ${c}`;

export interface ActivityDayRow {
  date: string;
  active: boolean;
  xp: number;
  lessons_completed: number;
  quiz_submissions: number;
  reviews: number;
  exams_submitted: number;
  games_finished: number;
  duels_finished: number;
}

export interface DaySums {
  xp: number;
  xp_learning: number;
  lessons_completed: number;
  reviews: number;
  plays: number;
  active_days: number;
}

/** The person's streak state, frozen days and activity days (extensions-v2 3.4). */
@Injectable()
export class StreaksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The state under a row lock (created empty when missing), for an evaluation. */
  async lock(userId: string, now: Date, tx: Tx): Promise<StreakState> {
    await tx.manager.query(
      `INSERT INTO streaks (user_id, updated_at) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING`,
      [userId, now],
    );
    const rows = await tx.manager.query<StreakRow[]>(
      `SELECT run_count, ${DATE('run_last')}, longest, freezes, ${DATE('first_active_on')}, ${DATE('last_active_on')},
         ${DATE('evaluated_through')}, ${DATE('grants_through')}
       FROM streaks WHERE user_id = $1 FOR UPDATE`,
      [userId],
    );
    return toState(rows[0]);
  }

  /** The states of many people under row locks taken in id order (created empty when missing). */
  async lockMany(userIds: readonly string[], now: Date, tx: Tx): Promise<Map<string, StreakState>> {
    if (userIds.length === 0) return new Map();
    const ids = [...new Set(userIds)].sort();
    await tx.manager.query(
      `INSERT INTO streaks (user_id, updated_at) SELECT id, $2 FROM unnest($1::uuid[]) AS id ORDER BY id
       ON CONFLICT (user_id) DO NOTHING`,
      [ids, now],
    );
    const rows = await tx.manager.query<(StreakRow & { user_id: string })[]>(
      `SELECT user_id, run_count, ${DATE('run_last')}, longest, freezes, ${DATE('first_active_on')},
         ${DATE('last_active_on')}, ${DATE('evaluated_through')}, ${DATE('grants_through')}
       FROM streaks WHERE user_id = ANY($1::uuid[]) ORDER BY user_id FOR UPDATE`,
      [ids],
    );
    return new Map(rows.map((r) => [r.user_id, toState(r)]));
  }

  async find(userId: string, tx?: Tx): Promise<StreakState> {
    const rows = await db(this.dataSource, tx).query<StreakRow[]>(
      `SELECT run_count, ${DATE('run_last')}, longest, freezes, ${DATE('first_active_on')}, ${DATE('last_active_on')},
         ${DATE('evaluated_through')}, ${DATE('grants_through')}
       FROM streaks WHERE user_id = $1`,
      [userId],
    );
    return rows.length ? toState(rows[0]) : EMPTY_STREAK;
  }

  async save(userId: string, s: StreakState, frozen: readonly string[], now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE streaks SET run_count = $2, run_last = $3, longest = $4, freezes = $5, first_active_on = $6,
         last_active_on = $7, evaluated_through = $8, grants_through = $9, updated_at = $10 WHERE user_id = $1`,
      [
        userId,
        s.runCount,
        s.runLast,
        s.longest,
        s.freezes,
        s.firstActiveOn,
        s.lastActiveOn,
        s.evaluatedThrough,
        s.grantsThrough,
        now,
      ],
    );
    if (frozen.length > 0)
      await tx.manager.query(
        `INSERT INTO streak_frozen_days (user_id, local_date) SELECT $1, d FROM unnest($2::date[]) d ON CONFLICT DO NOTHING`,
        [userId, frozen],
      );
  }

  /** Many people's states and frozen days in two statements (see `save`). */
  async saveMany(
    entries: readonly { userId: string; state: StreakState; frozen: readonly string[] }[],
    now: Date,
    tx: Tx,
  ): Promise<void> {
    if (entries.length === 0) return;
    const col = <T>(f: (s: StreakState) => T): T[] => entries.map((e) => f(e.state));
    await tx.manager.query(
      `UPDATE streaks t SET run_count = c.run_count, run_last = c.run_last, longest = c.longest, freezes = c.freezes,
         first_active_on = c.first_active_on, last_active_on = c.last_active_on,
         evaluated_through = c.evaluated_through, grants_through = c.grants_through, updated_at = $10
       FROM unnest($1::uuid[], $2::int[], $3::date[], $4::int[], $5::int[], $6::date[], $7::date[], $8::date[], $9::date[])
         AS c(user_id, run_count, run_last, longest, freezes, first_active_on, last_active_on, evaluated_through,
              grants_through)
       WHERE t.user_id = c.user_id`,
      [
        entries.map((e) => e.userId),
        col((s) => s.runCount),
        col((s) => s.runLast),
        col((s) => s.longest),
        col((s) => s.freezes),
        col((s) => s.firstActiveOn),
        col((s) => s.lastActiveOn),
        col((s) => s.evaluatedThrough),
        col((s) => s.grantsThrough),
        now,
      ],
    );
    const frozen = entries.flatMap((e) => e.frozen.map((d) => [e.userId, d] as const));
    if (frozen.length > 0)
      await tx.manager.query(
        `INSERT INTO streak_frozen_days (user_id, local_date)
         SELECT * FROM unnest($1::uuid[], $2::date[]) ON CONFLICT DO NOTHING`,
        [frozen.map((f) => f[0]), frozen.map((f) => f[1])],
      );
  }

  /** Active local dates of many people (any organization), each from its own `from` on, in one statement. */
  async activeDatesMany(
    entries: readonly { userId: string; from: string | null }[],
    tx: Tx,
  ): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>(entries.map((e) => [e.userId, new Set<string>()]));
    if (entries.length === 0) return out;
    const rows = await tx.manager.query<{ user_id: string; d: string }[]>(
      `${tenancyExempt('cross-organization-job')} SELECT DISTINCT a.user_id, to_char(a.local_date, 'YYYY-MM-DD') AS d
       FROM unnest($1::uuid[], $2::date[]) AS p(user_id, from_date)
       JOIN activity_days a ON a.user_id = p.user_id AND a.active AND (p.from_date IS NULL OR a.local_date >= p.from_date)`,
      [entries.map((e) => e.userId), entries.map((e) => e.from)],
    );
    for (const r of rows) out.get(r.user_id)!.add(r.d);
    return out;
  }

  /** Active local dates of the person (any organization) from `from` on. */
  async activeDates(userId: string, from: string | null, tx?: Tx): Promise<Set<string>> {
    const rows = await db(this.dataSource, tx).query<{ d: string }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT DISTINCT to_char(local_date, 'YYYY-MM-DD') AS d FROM activity_days
       WHERE user_id = $1 AND active AND ($2::date IS NULL OR local_date >= $2)`,
      [userId, from],
    );
    return new Set(rows.map((r) => r.d));
  }

  async frozenDates(userId: string, from: string, to: string, tx?: Tx): Promise<string[]> {
    const rows = await db(this.dataSource, tx).query<{ d: string }[]>(
      `SELECT to_char(local_date, 'YYYY-MM-DD') AS d FROM streak_frozen_days
       WHERE user_id = $1 AND local_date BETWEEN $2 AND $3 ORDER BY local_date`,
      [userId, from, to],
    );
    return rows.map((r) => r.d);
  }

  /** Days with activity or a freeze in `[from, to]`, summed over one organization or every one. */
  async activityDays(
    userId: string,
    from: string,
    to: string,
    organizationId: string | null,
  ): Promise<ActivityDayRow[]> {
    return this.dataSource.query<ActivityDayRow[]>(
      `SELECT to_char(d.local_date, 'YYYY-MM-DD') AS date, coalesce(a.active, false) AS active, coalesce(a.xp, 0) AS xp,
         coalesce(a.lessons_completed, 0) AS lessons_completed, coalesce(a.quiz_submissions, 0) AS quiz_submissions,
         coalesce(a.reviews, 0) AS reviews, coalesce(a.exams_submitted, 0) AS exams_submitted,
         coalesce(a.games_finished, 0) AS games_finished, coalesce(a.duels_finished, 0) AS duels_finished
       FROM (SELECT local_date FROM activity_days WHERE user_id = $1 AND local_date BETWEEN $2 AND $3
               AND ($4::uuid IS NULL OR ${orgEq(4)}) AND active
             UNION SELECT local_date FROM streak_frozen_days WHERE user_id = $1 AND local_date BETWEEN $2 AND $3) d
       LEFT JOIN LATERAL (
         SELECT bool_or(active) AS active, sum(xp)::int AS xp, sum(lessons_completed)::int AS lessons_completed,
           sum(quiz_submissions)::int AS quiz_submissions, sum(reviews)::int AS reviews,
           sum(exams_submitted)::int AS exams_submitted, sum(games_finished)::int AS games_finished,
           sum(duels_finished)::int AS duels_finished
         FROM activity_days x WHERE x.user_id = $1 AND x.local_date = d.local_date
           AND ($4::uuid IS NULL OR ${orgEq(4, 'x')})) a ON true
       ORDER BY d.local_date`,
      [userId, from, to, organizationId],
    );
  }

  /** Per-day sums of one organization (or all) over `[from, to]`: missions and goals count from them. */
  async daySums(userId: string, from: string, to: string, organizationId: string | null): Promise<DaySums> {
    const rows = await this.dataSource.query<DaySums[]>(
      `SELECT coalesce(sum(xp), 0)::int AS xp, coalesce(sum(xp_learning), 0)::int AS xp_learning,
         coalesce(sum(lessons_completed), 0)::int AS lessons_completed, coalesce(sum(reviews), 0)::int AS reviews,
         coalesce(sum(games_finished + duels_finished), 0)::int AS plays,
         count(DISTINCT local_date) FILTER (WHERE active)::int AS active_days
       FROM activity_days WHERE user_id = $1 AND local_date BETWEEN $2 AND $3
         AND ($4::uuid IS NULL OR ${orgEq(4)})`,
      [userId, from, to, organizationId],
    );
    return rows[0];
  }

  /** Streak state of many people (no lock), for the digest. */
  async findMany(userIds: readonly string[]): Promise<Map<string, StreakState>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.dataSource.query<(StreakRow & { user_id: string })[]>(
      `SELECT user_id, run_count, ${DATE('run_last')}, longest, freezes, ${DATE('first_active_on')},
         ${DATE('last_active_on')}, ${DATE('evaluated_through')}, ${DATE('grants_through')}
       FROM streaks WHERE user_id = ANY($1::uuid[])`,
      [userIds],
    );
    return new Map(rows.map((r) => [r.user_id, toState(r)]));
  }
}

function toState(r: StreakRow): StreakState {
  return {
    runCount: r.run_count,
    runLast: r.run_last,
    longest: r.longest,
    freezes: r.freezes,
    firstActiveOn: r.first_active_on,
    lastActiveOn: r.last_active_on,
    evaluatedThrough: r.evaluated_through,
    grantsThrough: r.grants_through,
  };
}
