import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { EndReason, GameMode } from './game-rules';
import type { PoolQuestion } from './question-pool.service';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export type GameStatus = 'in_progress' | 'finished' | 'abandoned';

export interface GameRow {
  id: string;
  organization_id: string;
  user_id: string;
  mode: GameMode;
  course_id: string | null;
  status: GameStatus;
  score: number;
  lives: number | null;
  questions_total: number;
  questions_answered: number;
  correct_answers: number;
  started_at: Date;
  ends_at: Date | null;
  touched_at: Date;
  finished_at: Date | null;
  end_reason: EndReason | null;
}

export interface QuestionRow {
  game_id: string;
  number: number;
  question_id: string;
  question: PoolQuestion;
  served_at: Date | null;
  deadline_at: Date | null;
}

/** One entry of a game's draw (extensions-v3 6.6): where to find the question when it is served. */
export interface QuestionRef {
  course_id: string;
  lesson_id: string;
  id: string;
}

export interface BoardRow {
  user_id: string;
  best: number;
  rank: number;
}

/** A game's columns but its draw (`question_order`, read one entry at a time when a question is served). */
const GAME_COLUMNS = `id, organization_id, user_id, mode, course_id, status, score, lives, questions_total, questions_answered,
  correct_answers, started_at, ends_at, touched_at, finished_at, end_reason`;

/**
 * Games and their questions (extensions-v2 section 7): the draw is kept as references (`question_order`), and a
 * question's snapshot is stored when it is served (extensions-v3 6.6), not the whole draw up front.
 */
@Injectable()
export class GamesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    g: {
      organizationId: string;
      userId: string;
      mode: GameMode;
      courseId: string | null;
      lives: number | null;
      score: number;
      total: number;
      startedAt: Date;
      endsAt: Date | null;
    },
    order: QuestionRef[],
    first: PoolQuestion,
    firstDeadline: Date,
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO games (organization_id, user_id, mode, course_id, score, lives, questions_total, started_at, ends_at,
         touched_at, question_order)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8, $10::jsonb) RETURNING id`,
      [
        g.organizationId,
        g.userId,
        g.mode,
        g.courseId,
        g.score,
        g.lives,
        g.total,
        g.startedAt,
        g.endsAt,
        JSON.stringify(order),
      ],
    );
    const id = rows[0].id;
    await this.serve(id, 1, first, g.startedAt, firstDeadline, tx);
    return id;
  }

  /** The draw's entry for question `number` (1-based), or null past its end. */
  async orderEntry(gameId: string, number: number, tx: Tx): Promise<QuestionRef | null> {
    const rows = await tx.manager.query<{ ref: QuestionRef | null }[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT question_order -> ($2::int - 1) AS ref FROM games WHERE id = $1`,
      [gameId, number],
    );
    return rows[0]?.ref ?? null;
  }

  async find(organizationId: string, id: string, tx?: Tx): Promise<GameRow | null> {
    const rows = await db(this.dataSource, tx).query<GameRow[]>(
      `SELECT ${GAME_COLUMNS} FROM games WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async lock(organizationId: string, id: string, tx: Tx): Promise<GameRow | null> {
    const rows = await tx.manager.query<GameRow[]>(
      `SELECT ${GAME_COLUMNS} FROM games WHERE ${orgEq(1)} AND id = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async inProgressOf(organizationId: string, userId: string, tx?: Tx): Promise<GameRow | null> {
    const rows = await db(this.dataSource, tx).query<GameRow[]>(
      `SELECT ${GAME_COLUMNS} FROM games WHERE ${orgEq(1)} AND user_id = $2 AND status = 'in_progress'`,
      [organizationId, userId],
    );
    return rows[0] ?? null;
  }

  async question(gameId: string, number: number, tx?: Tx): Promise<QuestionRow | null> {
    const rows = await db(this.dataSource, tx).query<QuestionRow[]>(
      `SELECT game_id, number, question_id, question, served_at, deadline_at FROM game_questions
       WHERE game_id = $1 AND number = $2`,
      [gameId, number],
    );
    return rows[0] ?? null;
  }

  async recordAnswer(
    gameId: string,
    number: number,
    a: {
      answeredAt: Date;
      optionIds: string[] | null;
      wager: number | null;
      correct: boolean;
      timedOut: boolean;
      delta: number;
    },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE game_questions SET answered_at = $3, option_ids = $4::uuid[], wager = $5, correct = $6, timed_out = $7,
         points_delta = $8
       WHERE game_id = $1 AND number = $2`,
      [gameId, number, a.answeredAt, a.optionIds, a.wager, a.correct, a.timedOut, a.delta],
    );
  }

  /** Stores question `number` as it is served: its snapshot (options in the order shown) and its deadline. */
  async serve(
    gameId: string,
    number: number,
    question: PoolQuestion,
    servedAt: Date,
    deadlineAt: Date,
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO game_questions (game_id, number, question_id, question, served_at, deadline_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6)`,
      [gameId, number, question.id, JSON.stringify(question), servedAt, deadlineAt],
    );
  }

  /** Serves a question stored at the start (games started before extensions-v3 6.6). */
  async serveStored(gameId: string, number: number, servedAt: Date, deadlineAt: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE game_questions SET served_at = $3, deadline_at = $4 WHERE game_id = $1 AND number = $2`,
      [gameId, number, servedAt, deadlineAt],
    );
  }

  async update(game: GameRow, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE games SET status = $2, score = $3, lives = $4, questions_answered = $5, correct_answers = $6,
         touched_at = $7, finished_at = $8, end_reason = $9
       WHERE id = $1`,
      [
        game.id,
        game.status,
        game.score,
        game.lives,
        game.questions_answered,
        game.correct_answers,
        game.touched_at,
        game.finished_at,
        game.end_reason,
      ],
    );
  }

  async list(
    organizationId: string,
    userId: string,
    filter: { mode?: GameMode; status?: GameStatus },
    page: { limit: number; offset: number },
  ): Promise<{ rows: GameRow[]; total: number }> {
    const params = [organizationId, userId, filter.mode ?? null, filter.status ?? null];
    const where = `${orgEq(1)} AND user_id = $2 AND ($3::text IS NULL OR mode = $3) AND ($4::text IS NULL OR status = $4)`;
    const [rows, total] = await Promise.all([
      this.dataSource.query<GameRow[]>(
        `SELECT ${GAME_COLUMNS} FROM games WHERE ${where} ORDER BY started_at DESC, id LIMIT $5 OFFSET $6`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM games WHERE ${where}`, params),
    ]);
    return { rows, total: total[0].n };
  }

  /** Games in progress nobody touched since `before` (the schedule abandons them). */
  async idle(before: Date, limit: number): Promise<{ organization_id: string; id: string }[]> {
    return this.dataSource.query(
      `${tenancyExempt('cross-organization-job')} SELECT organization_id, id FROM games WHERE status = 'in_progress' AND touched_at <= $1
       ORDER BY touched_at LIMIT $2`,
      [before, limit],
    );
  }

  /** Best finished score per member in [start, end), ranked (equal scores share the rank), ordered by user id. */
  async board(
    organizationId: string,
    mode: GameMode,
    start: Date | null,
    end: Date | null,
    userId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: BoardRow[]; total: number; me: BoardRow | null }> {
    const ranked = `WITH best AS (
        SELECT user_id, max(score) AS best FROM games
        WHERE ${orgEq(1)} AND mode = $2 AND status = 'finished'
          AND ($3::timestamptz IS NULL OR finished_at >= $3) AND ($4::timestamptz IS NULL OR finished_at < $4)
        GROUP BY user_id),
      ranked AS (SELECT user_id, best, (rank() OVER (ORDER BY best DESC))::int AS rank FROM best)`;
    const params = [organizationId, mode, start, end];
    const [rows, total, me] = await Promise.all([
      this.dataSource.query<BoardRow[]>(`${ranked} SELECT * FROM ranked ORDER BY rank, user_id LIMIT $5 OFFSET $6`, [
        ...params,
        page.limit,
        page.offset,
      ]),
      this.dataSource.query<{ n: number }[]>(`${ranked} SELECT count(*)::int AS n FROM ranked`, params),
      this.dataSource.query<BoardRow[]>(`${ranked} SELECT * FROM ranked WHERE user_id = $5`, [...params, userId]),
    ]);
    return { rows, total: total[0].n, me: me[0] ?? null };
  }
}
