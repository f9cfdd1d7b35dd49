import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { ChallengeMetric } from './dto/challenge.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ChallengeRow {
  id: string;
  organization_id: string;
  cohort_id: string | null;
  title: string;
  description_md: string;
  metric: ChallengeMetric;
  course_id: string | null;
  starts_at: Date;
  ends_at: Date;
  finished_at: Date | null;
  created_by: string | null;
  participants_count: number;
}

export interface StandingRow {
  user_id: string | null;
  value: number;
  rank: number;
}

const COLUMNS = `c.id, c.organization_id, c.cohort_id, c.title, c.description_md, c.metric, c.course_id, c.starts_at,
  c.ends_at, c.finished_at, c.created_by,
  (SELECT count(*) FROM challenge_participants p WHERE p.challenge_id = c.id)::int AS participants_count`;

/** Challenges, their participants and standings (extensions-v2 5.6). */
@Injectable()
export class ChallengesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(organizationId: string, id: string, tx?: Tx): Promise<ChallengeRow | null> {
    const rows = await db(this.dataSource, tx).query<ChallengeRow[]>(
      `SELECT ${COLUMNS} FROM challenges c WHERE ${orgEq(1, 'c')} AND c.id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async lock(organizationId: string, id: string, tx: Tx): Promise<ChallengeRow | null> {
    await tx.manager.query(`SELECT 1 FROM challenges WHERE ${orgEq(1)} AND id = $2 FOR UPDATE`, [organizationId, id]);
    return this.find(organizationId, id, tx);
  }

  async countOpen(organizationId: string, now: Date, tx: Tx): Promise<number> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('challenges:' || $1, 0))`, [organizationId]);
    const rows = await tx.manager.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM challenges WHERE ${orgEq(1)} AND ends_at > $2`,
      [organizationId, now],
    );
    return rows[0].n;
  }

  async insert(v: Omit<ChallengeRow, 'id' | 'finished_at' | 'participants_count'>, now: Date, tx: Tx): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO challenges (organization_id, cohort_id, title, description_md, metric, course_id, starts_at, ends_at,
         created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id`,
      [
        v.organization_id,
        v.cohort_id,
        v.title,
        v.description_md,
        v.metric,
        v.course_id,
        v.starts_at,
        v.ends_at,
        v.created_by,
        now,
      ],
    );
    return rows[0].id;
  }

  async update(id: string, v: Partial<ChallengeRow>, now: Date, tx: Tx): Promise<void> {
    const keys = Object.keys(v) as (keyof ChallengeRow)[];
    if (keys.length === 0) return;
    const sets = keys.map((k, i) => `${k} = $${i + 2}`);
    await tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE challenges SET ${sets.join(', ')}, updated_at = $${keys.length + 2} WHERE id = $1`,
      [id, ...keys.map((k) => v[k]), now],
    );
  }

  async delete(id: string, tx: Tx): Promise<void> {
    await tx.manager.query(`${tenancyExempt('by-key-after-scoped-read')} DELETE FROM challenges WHERE id = $1`, [id]);
  }

  /**
   * Challenges the viewer sees, `starts_at` descending: organization-wide ones, and those of `cohortIds` (all
   * cohorts when `cohortIds` is null: owner/admin).
   */
  async list(
    organizationId: string,
    cohortIds: string[] | null,
    status: string | undefined,
    now: Date,
    limit: number,
    offset: number,
  ): Promise<{ rows: ChallengeRow[]; total: number }> {
    const where = `${orgEq(1, 'c')} AND ($2::uuid[] IS NULL OR c.cohort_id IS NULL OR c.cohort_id = ANY($2::uuid[]))
      AND (CASE WHEN $3::text IS NULL THEN true
                WHEN $3 = 'upcoming' THEN c.starts_at > $4
                WHEN $3 = 'active' THEN c.starts_at <= $4 AND c.ends_at > $4
                ELSE c.ends_at <= $4 END)`;
    const params = [organizationId, cohortIds, status ?? null, now];
    const [rows, count] = await Promise.all([
      this.dataSource.query<ChallengeRow[]>(
        `SELECT ${COLUMNS} FROM challenges c WHERE ${where} ORDER BY c.starts_at DESC, c.id LIMIT $5 OFFSET $6`,
        [...params, limit, offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM challenges c WHERE ${where}`, params),
    ]);
    return { rows, total: count[0].n };
  }

  async joinedAmong(userId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.dataSource.query<{ challenge_id: string }[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT challenge_id FROM challenge_participants WHERE user_id = $1 AND challenge_id = ANY($2::uuid[])`,
      [userId, ids],
    );
    return new Set(rows.map((r) => r.challenge_id));
  }

  /** True when the row was created (false: already a participant). */
  async join(c: ChallengeRow, userId: string, now: Date, tx: Tx): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `INSERT INTO challenge_participants (challenge_id, organization_id, user_id, joined_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [c.id, c.organization_id, userId, now],
    );
    return rows.length === 1;
  }

  async leave(challengeId: string, userId: string, tx: Tx): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `${tenancyExempt('by-key-after-scoped-read')} DELETE FROM challenge_participants WHERE challenge_id = $1 AND user_id = $2`,
      [challengeId, userId],
    );
    return count > 0;
  }

  /** Live standings of the participants: value of the metric in `[starts_at, until)`, ranked like the leaderboard. */
  async liveStandings(c: ChallengeRow, until: Date, tx?: Tx): Promise<StandingRow[]> {
    const value =
      c.metric === 'xp'
        ? `(SELECT coalesce(sum(l.amount), 0) FROM xp_ledger l WHERE l.organization_id = p.organization_id
             AND l.user_id = p.user_id AND l.source <> 'challenge' AND l.created_at >= $2 AND l.created_at < $3)`
        : `(SELECT count(*) FROM engagement_facts f WHERE f.organization_id = p.organization_id AND f.user_id = p.user_id
             AND f.kind = $5 AND f.occurred_at >= $2 AND f.occurred_at < $3 AND ($4::uuid IS NULL OR f.course_id = $4))`;
    const kind = c.metric === 'lessons_completed' ? 'lesson' : c.metric === 'flashcard_reviews' ? 'review' : 'duel_win';
    return db(this.dataSource, tx).query<StandingRow[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT user_id, value, (rank() OVER (ORDER BY value DESC))::int AS rank FROM (
         SELECT p.user_id, ${value}::int AS value FROM challenge_participants p WHERE p.challenge_id = $1) s
       ORDER BY value DESC, user_id`,
      c.metric === 'xp' ? [c.id, c.starts_at, until] : [c.id, c.starts_at, until, c.course_id, kind],
    );
  }

  async frozenStandings(challengeId: string, tx?: Tx): Promise<StandingRow[]> {
    return db(this.dataSource, tx).query<StandingRow[]>(
      `SELECT user_id, value, rank FROM challenge_results WHERE challenge_id = $1 ORDER BY position`,
      [challengeId],
    );
  }

  /** Marks the challenge finished; false when another process did it first. */
  async markFinished(id: string, now: Date, tx: Tx): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE challenges SET finished_at = $2 WHERE id = $1 AND finished_at IS NULL`,
      [id, now],
    );
    return count > 0;
  }

  async saveResults(challengeId: string, standings: readonly StandingRow[], tx: Tx): Promise<void> {
    if (standings.length === 0) return;
    await tx.manager.query(
      `INSERT INTO challenge_results (challenge_id, position, user_id, rank, value)
       SELECT $1, ord, u, r, v FROM unnest($2::uuid[], $3::int[], $4::int[]) WITH ORDINALITY AS x(u, r, v, ord)`,
      [challengeId, standings.map((s) => s.user_id), standings.map((s) => s.rank), standings.map((s) => s.value)],
    );
  }

  /** Challenges past their end and not finished yet. */
  async due(now: Date, limit: number): Promise<{ id: string; organization_id: string }[]> {
    return this.dataSource.query(
      `${tenancyExempt('cross-organization-job')} SELECT id, organization_id FROM challenges WHERE finished_at IS NULL AND ends_at <= $1 ORDER BY ends_at LIMIT $2`,
      [now, limit],
    );
  }
}
