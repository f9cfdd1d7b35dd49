import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Tx } from '@/core/database/transaction';
import type { SubmissionStatus } from './dto/path.dto';
import { orgEq } from '@/core/database/tenancy';

export interface SubmissionRow {
  id: string;
  organization_id: string;
  user_id: string;
  path_id: string;
  content_md: string;
  url: string | null;
  status: SubmissionStatus;
  score: number | null;
  feedback: string | null;
  graded_by: string | null;
  graded_at: Date | null;
  submitted_at: Date;
}

const SUBMISSION_COLUMNS = `id, organization_id, user_id, path_id, content_md, url, status, score, feedback, graded_by,
  graded_at, submitted_at`;

/** Learning records of programs (completions, badges, capstones): tenant data, every query takes the organization. */
@Injectable()
export class ProgramsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the completion; true only for the call that recorded it (the primary key settles races). */
  async recordCompletion(organizationId: string, userId: string, pathId: string, now: Date, tx: Tx): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `INSERT INTO program_completions (organization_id, user_id, path_id, completed_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING path_id`,
      [organizationId, userId, pathId, now],
    );
    return rows.length > 0;
  }

  /** Which of these programs the person completed in this organization. */
  async completedPathIds(organizationId: string, userId: string, pathIds: string[]): Promise<Set<string>> {
    if (pathIds.length === 0) return new Set();
    const rows = await this.dataSource.query<{ path_id: string }[]>(
      `SELECT path_id FROM program_completions WHERE ${orgEq(1)} AND user_id = $2 AND path_id = ANY($3::uuid[])`,
      [organizationId, userId, pathIds],
    );
    return new Set(rows.map((r) => r.path_id));
  }

  /** The person's best passed capstone score for the program, or null when none passed. */
  async bestPassedScore(organizationId: string, userId: string, pathId: string): Promise<number | null> {
    const rows = await this.dataSource.query<{ best: number | null }[]>(
      `SELECT max(score) AS best FROM capstone_submissions
       WHERE ${orgEq(1)} AND path_id = $2 AND user_id = $3 AND status = 'passed'`,
      [organizationId, pathId, userId],
    );
    return rows[0]?.best ?? null;
  }

  async insertSubmission(values: {
    organizationId: string;
    userId: string;
    pathId: string;
    contentMd: string;
    url: string | null;
    now: Date;
  }): Promise<SubmissionRow> {
    const rows = await this.dataSource.query<SubmissionRow[]>(
      `INSERT INTO capstone_submissions (organization_id, user_id, path_id, content_md, url, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SUBMISSION_COLUMNS}`,
      [values.organizationId, values.userId, values.pathId, values.contentMd, values.url, values.now],
    );
    return rows[0];
  }

  /**
   * A page of the program's submissions in the organization, most recent first; `userIds` limits them to these
   * people (null: everyone).
   */
  async listSubmissions(
    organizationId: string,
    pathId: string,
    filter: { userIds: string[] | null; status?: SubmissionStatus },
    page: { limit: number; offset: number },
  ): Promise<{ rows: SubmissionRow[]; total: number }> {
    const where = `${orgEq(1)} AND path_id = $2 AND ($3::uuid[] IS NULL OR user_id = ANY($3::uuid[]))
      AND ($4::text IS NULL OR status = $4)`;
    const params = [organizationId, pathId, filter.userIds, filter.status ?? null];
    const [rows, count] = await Promise.all([
      this.dataSource.query<SubmissionRow[]>(
        `SELECT ${SUBMISSION_COLUMNS} FROM capstone_submissions WHERE ${where}
         ORDER BY submitted_at DESC, id DESC LIMIT $5 OFFSET $6`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM capstone_submissions WHERE ${where}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  async lockSubmission(organizationId: string, pathId: string, id: string, tx: Tx): Promise<SubmissionRow | null> {
    const rows = await tx.manager.query<SubmissionRow[]>(
      `SELECT ${SUBMISSION_COLUMNS} FROM capstone_submissions
       WHERE ${orgEq(1)} AND path_id = $2 AND id = $3 FOR UPDATE`,
      [organizationId, pathId, id],
    );
    return rows[0] ?? null;
  }

  async findSubmission(organizationId: string, pathId: string, id: string): Promise<SubmissionRow | null> {
    const rows = await this.dataSource.query<SubmissionRow[]>(
      `SELECT ${SUBMISSION_COLUMNS} FROM capstone_submissions WHERE ${orgEq(1)} AND path_id = $2 AND id = $3`,
      [organizationId, pathId, id],
    );
    return rows[0] ?? null;
  }

  async grade(
    organizationId: string,
    id: string,
    grade: { status: SubmissionStatus; score: number; feedback: string | null; gradedBy: string; now: Date },
    tx: Tx,
  ): Promise<SubmissionRow> {
    const [rows] = await tx.manager.query<[SubmissionRow[], number]>(
      `UPDATE capstone_submissions SET status = $3, score = $4, feedback = $5, graded_by = $6, graded_at = $7
       WHERE ${orgEq(1)} AND id = $2 RETURNING ${SUBMISSION_COLUMNS}`,
      [organizationId, id, grade.status, grade.score, grade.feedback, grade.gradedBy, grade.now],
    );
    return rows[0];
  }
}
