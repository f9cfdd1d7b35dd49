import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { visibleTo } from '@/modules/learning/courses';
import type { DuelQuestion, DuelRole, DuelStatus, ResultReason } from './duel-rules';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface DuelRow {
  id: string;
  organization_id: string;
  origin: 'challenge' | 'matchmaking';
  status: DuelStatus;
  course_id: string | null;
  challenger_id: string | null;
  opponent_id: string | null;
  questions: DuelQuestion[];
  created_at: Date;
  expires_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  challenger_score: number;
  opponent_score: number;
  winner: DuelRole | null;
  result_reason: ResultReason | null;
}

export interface RoundRow {
  duel_id: string;
  round: number;
  question_id: string;
  challenger_option_ids: string[];
  challenger_correct: boolean;
  challenger_points: number;
  challenger_answer_ms: number | null;
  opponent_option_ids: string[];
  opponent_correct: boolean;
  opponent_points: number;
  opponent_answer_ms: number | null;
}

export interface NewDuel {
  organization_id: string;
  origin: 'challenge' | 'matchmaking';
  status: 'pending' | 'ready';
  course_id: string | null;
  challenger_id: string;
  opponent_id: string;
  questions: DuelQuestion[];
  created_at: Date;
  expires_at: Date;
}

const LIVE = `('ready', 'active')`;

@Injectable()
export class DuelsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(d: NewDuel, tx: Tx): Promise<DuelRow> {
    const [row] = await tx.manager.query<DuelRow[]>(
      `INSERT INTO duels (organization_id, origin, status, course_id, challenger_id, opponent_id, questions,
         created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9) RETURNING *`,
      [
        d.organization_id,
        d.origin,
        d.status,
        d.course_id,
        d.challenger_id,
        d.opponent_id,
        JSON.stringify(d.questions),
        d.created_at,
        d.expires_at,
      ],
    );
    return row;
  }

  async find(organizationId: string, duelId: string, tx?: Tx, lock = false): Promise<DuelRow | null> {
    const rows = await db(this.dataSource, tx).query<DuelRow[]>(
      `SELECT * FROM duels WHERE id = $1 AND ${orgEq(2)}${lock ? ' FOR UPDATE' : ''}`,
      [duelId, organizationId],
    );
    return rows[0] ?? null;
  }

  async findById(duelId: string, tx?: Tx): Promise<DuelRow | null> {
    const rows = await db(this.dataSource, tx).query<DuelRow[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT * FROM duels WHERE id = $1`,
      [duelId],
    );
    return rows[0] ?? null;
  }

  /** Serializes the duel decisions of these people (one live duel each) until the transaction ends. */
  async lockPeople(userIds: string[], tx: Tx): Promise<void> {
    for (const id of [...userIds].sort()) {
      await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('duels:person:' || $1::text))`, [id]);
    }
  }

  /** A duel ready or active of this person, anywhere (one at a time, 8.1). */
  async liveOf(userId: string, tx?: Tx): Promise<DuelRow | null> {
    const rows = await db(this.dataSource, tx).query<DuelRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT * FROM duels WHERE (challenger_id = $1 OR opponent_id = $1) AND status IN ${LIVE}
       ORDER BY created_at DESC LIMIT 1`,
      [userId],
    );
    return rows[0] ?? null;
  }

  /** The person's live duel in this organization, or null. */
  async liveIn(organizationId: string, userId: string): Promise<DuelRow | null> {
    const rows = await this.dataSource.query<DuelRow[]>(
      `SELECT * FROM duels WHERE ${orgEq(1)} AND (challenger_id = $2 OR opponent_id = $2)
         AND status IN ${LIVE} ORDER BY created_at DESC LIMIT 1`,
      [organizationId, userId],
    );
    return rows[0] ?? null;
  }

  async pendingBetween(organizationId: string, a: string, b: string, tx: Tx): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `SELECT 1 FROM duels WHERE ${orgEq(1)} AND status = 'pending'
         AND ((challenger_id = $2 AND opponent_id = $3) OR (challenger_id = $3 AND opponent_id = $2)) LIMIT 1`,
      [organizationId, a, b],
    );
    return rows.length > 0;
  }

  async countPendingSent(userId: string, tx: Tx): Promise<number> {
    const [row] = await tx.manager.query<{ n: number }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT count(*)::int AS n FROM duels WHERE challenger_id = $1 AND status = 'pending'`,
      [userId],
    );
    return row.n;
  }

  async setStatus(
    duelId: string,
    from: DuelStatus[],
    to: DuelStatus,
    fields: { expires_at?: Date; started_at?: Date; finished_at?: Date },
    tx?: Tx,
  ): Promise<DuelRow | null> {
    const rows = await db(this.dataSource, tx).query<[DuelRow[], number]>(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE duels SET status = $3, expires_at = coalesce($4, expires_at), started_at = coalesce($5, started_at),
         finished_at = coalesce($6, finished_at)
       WHERE id = $1 AND status = ANY($2) RETURNING *`,
      [duelId, from, to, fields.expires_at ?? null, fields.started_at ?? null, fields.finished_at ?? null],
    );
    return rows[0]?.[0] ?? null;
  }

  async finish(
    duelId: string,
    result: { scores: { challenger: number; opponent: number }; winner: DuelRole | null; reason: ResultReason },
    at: Date,
    tx: Tx,
  ): Promise<DuelRow | null> {
    const rows = await tx.manager.query<[DuelRow[], number]>(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE duels SET status = 'finished', finished_at = $2, challenger_score = $3, opponent_score = $4,
         winner = $5, result_reason = $6
       WHERE id = $1 AND status = 'active' RETURNING *`,
      [duelId, at, result.scores.challenger, result.scores.opponent, result.winner, result.reason],
    );
    return rows[0]?.[0] ?? null;
  }

  /** Stores a scored round and the duel's running totals, in one statement. */
  async insertRound(r: RoundRow, at: Date): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} WITH ins AS (
         INSERT INTO duel_rounds (duel_id, round, question_id, challenger_option_ids, challenger_correct,
           challenger_points, challenger_answer_ms, opponent_option_ids, opponent_correct, opponent_points,
           opponent_answer_ms, scored_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (duel_id, round) DO NOTHING
         RETURNING challenger_points, opponent_points)
       UPDATE duels SET challenger_score = challenger_score + ins.challenger_points,
         opponent_score = opponent_score + ins.opponent_points
       FROM ins WHERE id = $1 AND status = 'active'`,
      [
        r.duel_id,
        r.round,
        r.question_id,
        r.challenger_option_ids,
        r.challenger_correct,
        r.challenger_points,
        r.challenger_answer_ms,
        r.opponent_option_ids,
        r.opponent_correct,
        r.opponent_points,
        r.opponent_answer_ms,
        at,
      ],
    );
  }

  async rounds(duelIds: string[]): Promise<Map<string, RoundRow[]>> {
    const out = new Map<string, RoundRow[]>();
    if (duelIds.length === 0) return out;
    const rows = await this.dataSource.query<RoundRow[]>(
      `SELECT * FROM duel_rounds WHERE duel_id = ANY($1) ORDER BY duel_id, round`,
      [duelIds],
    );
    for (const r of rows) out.set(r.duel_id, [...(out.get(r.duel_id) ?? []), r]);
    return out;
  }

  async list(
    organizationId: string,
    userId: string,
    q: { status?: DuelStatus; role?: DuelRole; limit: number; offset: number },
  ): Promise<{ rows: DuelRow[]; total: number }> {
    const where = [orgEq(1)];
    const params: unknown[] = [organizationId, userId];
    if (q.role === 'challenger') where.push(`challenger_id = $2`);
    else if (q.role === 'opponent') where.push(`opponent_id = $2`);
    else where.push(`(challenger_id = $2 OR opponent_id = $2)`);
    if (q.status) {
      params.push(q.status);
      where.push(`status = $${params.length}`);
    }
    const [{ total }] = await this.dataSource.query<{ total: number }[]>(
      `SELECT count(*)::int AS total FROM duels WHERE ${where.join(' AND ')}`,
      params,
    );
    const rows = await this.dataSource.query<DuelRow[]>(
      `SELECT * FROM duels WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC
       LIMIT ${q.limit} OFFSET ${q.offset}`,
      params,
    );
    return { rows, total };
  }

  /** The caller's finished duels here, oldest first (stats and streaks). */
  async finishedOf(organizationId: string, userId: string): Promise<DuelRow[]> {
    return this.dataSource.query<DuelRow[]>(
      `SELECT * FROM duels WHERE ${orgEq(1)} AND (challenger_id = $2 OR opponent_id = $2)
         AND status = 'finished' ORDER BY finished_at, id`,
      [organizationId, userId],
    );
  }

  /** Pending and ready duels past `expires_at` become `expired` (of these people, or all); the ids changed. */
  async expireDue(now: Date, userId?: string): Promise<DuelRow[]> {
    const [rows] = await this.dataSource.query<[DuelRow[], number]>(
      `${tenancyExempt('cross-organization-job')} UPDATE duels SET status = 'expired' WHERE status IN ('pending', 'ready') AND expires_at <= $1
         ${userId ? 'AND (challenger_id = $2 OR opponent_id = $2)' : ''} RETURNING *`,
      userId ? [now, userId] : [now],
    );
    return rows;
  }

  /** A member of the organization by username: id and whether a minor. */
  async memberByUsername(organizationId: string, username: string): Promise<{ id: string; minor: boolean } | null> {
    const rows = await this.dataSource.query<{ id: string; minor: boolean }[]>(
      `SELECT u.id, (u.age_bracket = 'under_18') AS minor FROM users_read u
       JOIN memberships_read m ON m.user_id = u.id AND ${orgEq(1, 'm')}
       WHERE lower(u.username) = lower($2)`,
      [organizationId, username],
    );
    return rows[0] ?? null;
  }

  async isEnrolled(organizationId: string, userId: string, courseId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM enrollments_read WHERE ${orgEq(1)} AND user_id = $2 AND course_id = $3`,
      [organizationId, userId, courseId],
    );
    return rows.length > 0;
  }

  async courseVisible(organizationId: string, courseId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM courses_read c WHERE c.id = $2 AND ${visibleTo('c', 1)}`,
      [organizationId, courseId],
    );
    return rows.length > 0;
  }

  /**
   * Up to `n` random lesson-quiz questions of published courses the organization reaches (8.1): of `courseId`, or
   * of the courses every one of `players` is enrolled in here, or of all of them.
   */
  async drawQuestions(
    organizationId: string,
    scope: { courseId: string } | { enrolledAll: string[] } | 'all',
    n: number,
  ): Promise<DuelQuestion[]> {
    const params: unknown[] = [organizationId];
    let filter = '';
    if (scope !== 'all' && 'courseId' in scope) {
      params.push(scope.courseId);
      filter = `AND c.id = $2`;
    } else if (scope !== 'all') {
      params.push(scope.enrolledAll);
      filter = `AND c.id IN (SELECT e.course_id FROM enrollments_read e WHERE ${orgEq(1, 'e')}
        AND e.user_id = ANY($2) GROUP BY e.course_id HAVING count(DISTINCT e.user_id) = cardinality($2::uuid[]))`;
    }
    params.push(n);
    const questions = await this.dataSource.query<{ id: string; prompt: string; kind: DuelQuestion['kind'] }[]>(
      `SELECT qq.id, qq.prompt, qq.kind FROM quiz_questions_read qq
       JOIN quizzes_read qz ON qz.id = qq.quiz_id JOIN lessons_read l ON l.id = qz.lesson_id JOIN courses_read c ON c.id = l.course_id
       WHERE ${visibleTo('c', 1)} ${filter}
         AND EXISTS (SELECT 1 FROM quiz_options_read o WHERE o.question_id = qq.id AND o.correct)
       ORDER BY random() LIMIT $${params.length}`,
      params,
    );
    if (questions.length === 0) return [];
    const options = await this.dataSource.query<{ question_id: string; id: string; text: string; correct: boolean }[]>(
      `SELECT question_id, id, text, correct FROM quiz_options_read WHERE question_id = ANY($1) ORDER BY question_id, position`,
      [questions.map((q) => q.id)],
    );
    return questions.map((q) => {
      const own = options.filter((o) => o.question_id === q.id);
      return {
        id: q.id,
        prompt: q.prompt,
        kind: q.kind,
        options: own.map((o) => ({ id: o.id, text: o.text })),
        correct_option_ids: own.filter((o) => o.correct).map((o) => o.id),
      };
    });
  }
}
