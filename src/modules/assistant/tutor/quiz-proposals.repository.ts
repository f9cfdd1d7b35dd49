import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { AiProviderName } from '@/modules/assistant/ai-usage';
import type { ProposalKindName, ProposalStatus } from './dto/quiz-proposal.dto';

export interface StoredQuestion {
  index: number;
  prompt: string;
  kind: ProposalKindName;
  options: { text: string; correct: boolean }[];
  explanation: string | null;
  source: { chunk_id: string; snippet: string };
  accepted_at: string | null;
}

export interface ProposalRow {
  id: string;
  course_id: string;
  lesson_id: string;
  status: ProposalStatus;
  count: number;
  kinds: ProposalKindName[];
  provider: AiProviderName | null;
  model: string | null;
  questions: StoredQuestion[];
  error_code: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  created_by: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface ProposalOutcome {
  status: 'ready' | 'failed';
  provider: AiProviderName;
  model: string;
  questions: StoredQuestion[];
  errorCode: string | null;
  inputTokens: number;
  outputTokens: number;
  finishedAt: Date;
}

const COLUMNS = `id, course_id, lesson_id, status, count, kinds, provider, model, questions, error_code, input_tokens,
  output_tokens, created_by, created_at, finished_at`;

/** AI quiz proposals of the editor (platform data: a lesson of the shared catalog, no organization). */
@Injectable()
export class QuizProposalsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    values: {
      courseId: string;
      lessonId: string;
      count: number;
      kinds: ProposalKindName[];
      createdBy: string;
      now: Date;
    },
    tx: Tx,
  ): Promise<ProposalRow> {
    const rows = await tx.manager.query<ProposalRow[]>(
      `INSERT INTO quiz_proposals (course_id, lesson_id, status, count, kinds, created_by, created_at)
       VALUES ($1, $2, 'queued', $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [values.courseId, values.lessonId, values.count, values.kinds, values.createdBy, values.now],
    );
    return rows[0];
  }

  async find(courseId: string, lessonId: string, id: string, tx?: Tx): Promise<ProposalRow | null> {
    const rows = await db(this.dataSource, tx).query<ProposalRow[]>(
      `SELECT ${COLUMNS} FROM quiz_proposals WHERE id = $3 AND lesson_id = $2 AND course_id = $1`,
      [courseId, lessonId, id],
    );
    return rows[0] ?? null;
  }

  async byId(id: string): Promise<ProposalRow | null> {
    const rows = await this.dataSource.query<ProposalRow[]>(`SELECT ${COLUMNS} FROM quiz_proposals WHERE id = $1`, [
      id,
    ]);
    return rows[0] ?? null;
  }

  /** The lesson's most recent proposals (`quiz_proposals_lesson_idx`). */
  list(courseId: string, lessonId: string, limit: number): Promise<ProposalRow[]> {
    return this.dataSource.query<ProposalRow[]>(
      `SELECT ${COLUMNS} FROM quiz_proposals WHERE lesson_id = $2 AND course_id = $1
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [courseId, lessonId, limit],
    );
  }

  async delete(courseId: string, lessonId: string, id: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM quiz_proposals WHERE id = $3 AND lesson_id = $2 AND course_id = $1`,
      [courseId, lessonId, id],
    );
    return count === 1;
  }

  /** Marks the proposal running, unless it is finished (a job run again after it finished does nothing). */
  async start(id: string): Promise<ProposalRow | null> {
    // An UPDATE answers [rows, count] through TypeORM.
    const [rows] = await this.dataSource.query<[ProposalRow[], number]>(
      `UPDATE quiz_proposals SET status = 'running' WHERE id = $1 AND status IN ('queued', 'running')
       RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Records the outcome once (a second writer finds it finished and changes nothing). */
  async finish(id: string, outcome: ProposalOutcome, tx: Tx): Promise<boolean> {
    const [rows] = await tx.manager.query<[unknown[], number]>(
      `UPDATE quiz_proposals SET status = $2, provider = $3, model = $4, questions = $5, error_code = $6,
         input_tokens = $7, output_tokens = $8, finished_at = $9
       WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`,
      [
        id,
        outcome.status,
        outcome.provider,
        outcome.model,
        JSON.stringify(outcome.questions),
        outcome.errorCode,
        outcome.inputTokens,
        outcome.outputTokens,
        outcome.finishedAt,
      ],
    );
    return rows.length === 1;
  }

  /** The proposal locked for an acceptance (two acceptances of one question cannot both pass). */
  async lock(courseId: string, lessonId: string, id: string, tx: Tx): Promise<ProposalRow | null> {
    const rows = await tx.manager.query<ProposalRow[]>(
      `SELECT ${COLUMNS} FROM quiz_proposals WHERE id = $3 AND lesson_id = $2 AND course_id = $1 FOR UPDATE`,
      [courseId, lessonId, id],
    );
    return rows[0] ?? null;
  }

  async saveQuestions(id: string, questions: StoredQuestion[], tx: Tx): Promise<void> {
    await tx.manager.query(`UPDATE quiz_proposals SET questions = $2 WHERE id = $1`, [id, JSON.stringify(questions)]);
  }

  // Personal data: the editor who asked (the proposals themselves are catalog drafts, not about the person).

  personRows(userId: string, db: EntityManager): Promise<Record<string, unknown>[]> {
    return db.query(
      `SELECT id, course_id, lesson_id, status, count, kinds, created_at, finished_at FROM quiz_proposals
       WHERE created_by = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async forgetCreator(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`UPDATE quiz_proposals SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
