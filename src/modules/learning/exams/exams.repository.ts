import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { visibleTo } from '@/modules/learning/courses';
import type { PoolQuestion, ShowResults } from './exam-rules';
import type { ExamStatus } from './dto/exam.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ExamValues {
  title: string;
  instructions_md: string;
  duration_minutes: number;
  passing_score: number;
  questions_per_attempt: number;
  max_attempts: number;
  shuffle_questions: boolean;
  shuffle_options: boolean;
  show_results: ShowResults;
  required_for_completion: boolean;
  fullscreen_required: boolean;
  max_focus_losses: number;
  flag_paste: boolean;
  status: ExamStatus;
  questions: PoolQuestion[];
}

export interface ExamRow extends ExamValues {
  id: string;
  course_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface ExamCardRow extends ExamRow {
  course_title: string;
}

export interface WindowRow {
  id: string;
  organization_id: string;
  exam_id: string;
  cohort_id: string | null;
  opens_at: Date;
  closes_at: Date | null;
  created_by: string | null;
  created_at: Date;
}

const EXAM_COLUMNS = `e.id, e.course_id, e.title, e.instructions_md, e.duration_minutes, e.passing_score,
  e.questions_per_attempt, e.max_attempts, e.shuffle_questions, e.shuffle_options, e.show_results,
  e.required_for_completion, e.fullscreen_required, e.max_focus_losses, e.flag_paste, e.status, e.questions,
  e.created_at, e.updated_at`;
const WINDOW_COLUMNS = `w.id, w.organization_id, w.exam_id, w.cohort_id, w.opens_at, w.closes_at, w.created_by, w.created_at`;

/**
 * Exams (platform data, like the courses they belong to) and their windows (organization data: every window
 * query takes the organization id).
 */
@Injectable()
export class ExamsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private db(tx?: Tx): EntityManager {
    return db(this.dataSource, tx);
  }

  // Exams.

  /** Serializes the exam writes of one course until the transaction ends (the limit of 20 under races). */
  async lockCourse(courseId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('exams:course:' || $1::text, 0))`, [
      courseId,
    ]);
  }

  async countOfCourse(courseId: string, tx: Tx): Promise<number> {
    const rows = await tx.manager.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM exams WHERE course_id = $1`, [
      courseId,
    ]);
    return rows[0]?.n ?? 0;
  }

  /** The course's exams, oldest first (`exams_course_idx`). */
  listOfCourse(courseId: string): Promise<ExamRow[]> {
    return this.dataSource.query<ExamRow[]>(
      `SELECT ${EXAM_COLUMNS} FROM exams e WHERE e.course_id = $1 ORDER BY e.created_at, e.id`,
      [courseId],
    );
  }

  async find(examId: string, tx?: Tx): Promise<ExamRow | null> {
    const rows = await this.db(tx).query<ExamRow[]>(`SELECT ${EXAM_COLUMNS} FROM exams e WHERE e.id = $1`, [examId]);
    return rows[0] ?? null;
  }

  async lock(courseId: string, examId: string, tx: Tx): Promise<ExamRow | null> {
    const rows = await tx.manager.query<ExamRow[]>(
      `SELECT ${EXAM_COLUMNS} FROM exams e WHERE e.id = $1 AND e.course_id = $2 FOR UPDATE`,
      [examId, courseId],
    );
    return rows[0] ?? null;
  }

  async insert(courseId: string, v: ExamValues, now: Date, tx: Tx): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO exams (course_id, title, instructions_md, duration_minutes, passing_score, questions_per_attempt,
         max_attempts, shuffle_questions, shuffle_options, show_results, required_for_completion, fullscreen_required,
         max_focus_losses, flag_paste, status, questions, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
       RETURNING id`,
      [courseId, ...valueParams(v), now],
    );
    return rows[0].id;
  }

  async update(examId: string, v: ExamValues, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE exams SET title = $2, instructions_md = $3, duration_minutes = $4, passing_score = $5,
         questions_per_attempt = $6, max_attempts = $7, shuffle_questions = $8, shuffle_options = $9, show_results = $10,
         required_for_completion = $11, fullscreen_required = $12, max_focus_losses = $13, flag_paste = $14,
         status = $15, questions = $16, updated_at = $17
       WHERE id = $1`,
      [examId, ...valueParams(v), now],
    );
  }

  async delete(examId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM exams WHERE id = $1`, [examId]);
  }

  /** Whether any organization has a session of this exam (`exam_sessions_exam_idx`). */
  async hasSessions(examId: string, tx: Tx): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `${tenancyExempt('cross-organization-existence')} SELECT 1 FROM exam_sessions WHERE exam_id = $1 LIMIT 1`,
      [examId],
    );
    return rows.length > 0;
  }

  // Exam cards.

  /** Courses that have published exams (candidates for the enrollment half of the reach rule). */
  async coursesWithPublishedExams(courseId?: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ course_id: string }[]>(
      `SELECT DISTINCT course_id FROM exams WHERE status = 'published' AND ($1::uuid IS NULL OR course_id = $1)`,
      [courseId ?? null],
    );
    return rows.map((r) => r.course_id);
  }

  /**
   * Published exams of courses this member reaches (the built rule: in the organization's catalog, or enrolled
   * here in a course that is not a draft), by course title then exam title.
   */
  async cardPage(
    organizationId: string,
    enrolledCourseIds: string[],
    courseId: string | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ExamCardRow[]; total: number }> {
    const where = `e.status = 'published' AND ($2::uuid IS NULL OR e.course_id = $2)
      AND (${visibleTo('c', 1)} OR (c.status <> 'draft' AND c.id = ANY($3::uuid[])))`;
    const params = [organizationId, courseId ?? null, enrolledCourseIds];
    const [rows, count] = await Promise.all([
      this.dataSource.query<ExamCardRow[]>(
        `SELECT ${EXAM_COLUMNS}, c.title AS course_title FROM exams e JOIN courses_read c ON c.id = e.course_id
         WHERE ${where} ORDER BY c.title, e.title, e.id LIMIT $4 OFFSET $5`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM exams e JOIN courses_read c ON c.id = e.course_id WHERE ${where}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  // Windows.

  /**
   * Windows of these exams in the organization. `cohortIds` null: every window; else the organization-wide ones
   * and those of these cohorts.
   */
  windowsOf(organizationId: string, examIds: string[], cohortIds: string[] | null, tx?: Tx): Promise<WindowRow[]> {
    if (examIds.length === 0) return Promise.resolve([]);
    return this.db(tx).query<WindowRow[]>(
      `SELECT ${WINDOW_COLUMNS} FROM exam_windows w
       WHERE ${orgEq(1, 'w')} AND w.exam_id = ANY($2::uuid[])
         AND ($3::uuid[] IS NULL OR w.cohort_id IS NULL OR w.cohort_id = ANY($3::uuid[]))
       ORDER BY w.opens_at, w.id`,
      [organizationId, examIds, cohortIds],
    );
  }

  async findWindow(organizationId: string, examId: string, windowId: string, tx?: Tx): Promise<WindowRow | null> {
    const rows = await this.db(tx).query<WindowRow[]>(
      `SELECT ${WINDOW_COLUMNS} FROM exam_windows w WHERE ${orgEq(1, 'w')} AND w.exam_id = $2 AND w.id = $3`,
      [organizationId, examId, windowId],
    );
    return rows[0] ?? null;
  }

  async insertWindow(
    w: { organizationId: string; examId: string; cohortId: string | null; opensAt: Date; closesAt: Date | null },
    createdBy: string,
    now: Date,
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO exam_windows (organization_id, exam_id, cohort_id, opens_at, closes_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
      [w.organizationId, w.examId, w.cohortId, w.opensAt, w.closesAt, createdBy, now],
    );
    return rows[0].id;
  }

  async updateWindow(
    organizationId: string,
    windowId: string,
    opensAt: Date,
    closesAt: Date | null,
    now: Date,
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE exam_windows SET opens_at = $3, closes_at = $4, updated_at = $5 WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, windowId, opensAt, closesAt, now],
    );
  }

  async deleteWindow(organizationId: string, windowId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM exam_windows WHERE ${orgEq(1)} AND id = $2`, [organizationId, windowId]);
  }
}

function valueParams(v: ExamValues): unknown[] {
  return [
    v.title,
    v.instructions_md,
    v.duration_minutes,
    v.passing_score,
    v.questions_per_attempt,
    v.max_attempts,
    v.shuffle_questions,
    v.shuffle_options,
    v.show_results,
    v.required_for_completion,
    v.fullscreen_required,
    v.max_focus_losses,
    v.flag_paste,
    v.status,
    JSON.stringify(v.questions),
  ];
}
