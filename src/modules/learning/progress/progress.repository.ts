import { orgEq, tenancyExempt } from '@/core/database/tenancy';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { EnrollmentRecord } from '@/modules/learning/courses';

export interface EnrollmentRow extends EnrollmentRecord {
  completed_lessons: number;
  total_lessons: number;
}

/** A person's completed lessons of a course, and the course's lessons. */
export interface CompletionCounts {
  done: number;
  total: number;
}

export interface ProgressRow extends EnrollmentRow {
  user_id: string;
}

/** Enrollment columns of `e` with its lesson counts (completions by `lesson_completions_course_idx`). */
const ENROLLMENT_COLUMNS = `e.course_id, e.status, e.enrolled_at, e.completed_at, e.last_activity_at,
  (SELECT count(*)::int FROM lesson_completions lc
    WHERE lc.organization_id = e.organization_id AND lc.course_id = e.course_id AND lc.user_id = e.user_id) AS completed_lessons,
  (SELECT count(*)::int FROM lessons_read l WHERE l.course_id = e.course_id) AS total_lessons`;

/** Learning records are tenant data: every query takes the organization id. */
@Injectable()
export class ProgressRepository {
  constructor(private readonly dataSource: DataSource) {}

  async completedCourseIds(organizationId: string, userId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ course_id: string }[]>(
      `SELECT course_id FROM enrollments WHERE ${orgEq(1)} AND user_id = $2 AND status = 'completed'`,
      [organizationId, userId],
    );
    return rows.map((r) => r.course_id);
  }

  async find(organizationId: string, userId: string, courseId: string, tx?: Tx): Promise<EnrollmentRow | null> {
    const rows = await db(this.dataSource, tx).query<EnrollmentRow[]>(
      `SELECT ${ENROLLMENT_COLUMNS} FROM enrollments e
       WHERE ${orgEq(1, 'e')} AND e.user_id = $2 AND e.course_id = $3`,
      [organizationId, userId, courseId],
    );
    return rows[0] ?? null;
  }

  /** The enrollment row alone (the unique index of organization, user and course), without its lesson counts. */
  async record(organizationId: string, userId: string, courseId: string): Promise<EnrollmentRecord | null> {
    const rows = await this.dataSource.query<EnrollmentRecord[]>(
      `SELECT e.course_id, e.status, e.enrolled_at, e.completed_at, e.last_activity_at FROM enrollments e
       WHERE ${orgEq(1, 'e')} AND e.user_id = $2 AND e.course_id = $3`,
      [organizationId, userId, courseId],
    );
    return rows[0] ?? null;
  }

  /** Locks the enrollment until the transaction ends: completions of one enrollment run one at a time. */
  async lock(organizationId: string, userId: string, courseId: string, tx: Tx): Promise<{ status: string } | null> {
    const rows = await tx.manager.query<{ status: string }[]>(
      `SELECT status FROM enrollments WHERE ${orgEq(1)} AND user_id = $2 AND course_id = $3 FOR UPDATE`,
      [organizationId, userId, courseId],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks the enrollment until the transaction ends (completions of one enrollment run one at a time), moves its last
   * activity to `now` (undone with the transaction when the completion is refused) and answers its status and whether
   * the lesson is completed already; null when not enrolled. One statement for what was a lock, a look-up and a
   * touch. The look-up may miss a completion committed while this waited for the lock: `insertCompletion` (ON
   * CONFLICT DO NOTHING) still writes it once.
   */
  async lockForCompletion(
    organizationId: string,
    userId: string,
    courseId: string,
    lessonId: string,
    now: Date,
    tx: Tx,
  ): Promise<{ status: string; lesson_completed: boolean } | null> {
    // TypeORM answers an UPDATE ... RETURNING as [rows, affected count].
    const [rows] = await tx.manager.query<[{ status: string; lesson_completed: boolean }[], number]>(
      `UPDATE enrollments e SET last_activity_at = GREATEST(e.last_activity_at, $4)
       WHERE ${orgEq(1, 'e')} AND e.user_id = $2 AND e.course_id = $3
       RETURNING e.status, EXISTS (SELECT 1 FROM lesson_completions lc
         WHERE ${orgEq(1, 'lc')} AND lc.user_id = $2 AND lc.lesson_id = $5) AS lesson_completed`,
      [organizationId, userId, courseId, now, lessonId],
    );
    return rows[0] ?? null;
  }

  /** True when inserted; false when the person was already enrolled (a concurrent enroll waits, then finds it). */
  async insert(organizationId: string, userId: string, courseId: string, now: Date, tx: Tx): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `INSERT INTO enrollments (organization_id, user_id, course_id, status, enrolled_at, last_activity_at)
       VALUES ($1, $2, $3, 'active', $4, $4)
       ON CONFLICT (organization_id, user_id, course_id) DO NOTHING RETURNING id`,
      [organizationId, userId, courseId, now],
    );
    return rows.length > 0;
  }

  /** The person's enrollments in the organization, most recently enrolled first (`enrollments_user_idx`). */
  listOf(organizationId: string, userId: string): Promise<EnrollmentRow[]> {
    return this.dataSource.query<EnrollmentRow[]>(
      `SELECT ${ENROLLMENT_COLUMNS} FROM enrollments e
       WHERE e.user_id = $2 AND ${orgEq(1, 'e')} ORDER BY e.enrolled_at DESC, e.course_id`,
      [organizationId, userId],
    );
  }

  async enrolledCourseIds(organizationId: string, userId: string, courseIds: string[]): Promise<string[]> {
    if (courseIds.length === 0) return [];
    const rows = await this.dataSource.query<{ course_id: string }[]>(
      `SELECT course_id FROM enrollments WHERE ${orgEq(1)} AND user_id = $2 AND course_id = ANY($3::uuid[])`,
      [organizationId, userId, courseIds],
    );
    return rows.map((r) => r.course_id);
  }

  async completedLessonIds(organizationId: string, userId: string, courseId: string, tx?: Tx): Promise<string[]> {
    const rows = await db(this.dataSource, tx).query<{ lesson_id: string }[]>(
      `SELECT lesson_id FROM lesson_completions WHERE ${orgEq(1)} AND course_id = $3 AND user_id = $2`,
      [organizationId, userId, courseId],
    );
    return rows.map((r) => r.lesson_id);
  }

  /**
   * Records the completion (`inserted` false when it existed already) and, in the same statement, counts the
   * person's completed lessons of the course, this one included (`done`), and the course's lessons (`total`). Under
   * the enrollment lock, so no other completion of the enrollment commits in between.
   */
  async insertCompletion(
    organizationId: string,
    userId: string,
    courseId: string,
    lessonId: string,
    now: Date,
    tx: Tx,
  ): Promise<{ inserted: boolean } & CompletionCounts> {
    // The statement's snapshot does not show its own insert: `done` adds it to the completions counted before.
    const rows = await tx.manager.query<{ inserted: number; before: number; total: number }[]>(
      `WITH ins AS (
         INSERT INTO lesson_completions (organization_id, user_id, course_id, lesson_id, completed_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING lesson_id)
       SELECT (SELECT count(*)::int FROM ins) AS inserted,
              (SELECT count(*)::int FROM lesson_completions lc
                WHERE ${orgEq(1, 'lc')} AND lc.course_id = $3 AND lc.user_id = $2) AS before,
              (SELECT count(*)::int FROM lessons_read l WHERE l.course_id = $3) AS total`,
      [organizationId, userId, courseId, lessonId, now],
    );
    const { inserted, before, total } = rows[0];
    return { inserted: inserted > 0, done: before + inserted, total };
  }

  /** The person's completed lessons of the course and the course's lessons, in one statement. */
  async completionCounts(organizationId: string, userId: string, courseId: string, tx: Tx): Promise<CompletionCounts> {
    const rows = await tx.manager.query<CompletionCounts[]>(
      `SELECT (SELECT count(*)::int FROM lesson_completions lc
                WHERE ${orgEq(1, 'lc')} AND lc.course_id = $3 AND lc.user_id = $2) AS done,
              (SELECT count(*)::int FROM lessons_read l WHERE l.course_id = $3) AS total`,
      [organizationId, userId, courseId],
    );
    return rows[0];
  }

  async markCompleted(organizationId: string, userId: string, courseId: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE enrollments SET status = 'completed', completed_at = $4
       WHERE ${orgEq(1)} AND user_id = $2 AND course_id = $3`,
      [organizationId, userId, courseId, now],
    );
  }

  async touch(organizationId: string, userId: string, courseId: string, now: Date, tx?: Tx): Promise<void> {
    await db(this.dataSource, tx).query(
      `UPDATE enrollments SET last_activity_at = GREATEST(last_activity_at, $4)
       WHERE ${orgEq(1)} AND user_id = $2 AND course_id = $3`,
      [organizationId, userId, courseId, now],
    );
  }

  /** Whether the person passed this quiz (`quiz_submissions_lookup_idx`). */
  async hasPassed(organizationId: string, userId: string, lessonId: string, quizId: string, tx: Tx): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `SELECT 1 FROM quiz_submissions
       WHERE ${orgEq(1)} AND user_id = $2 AND lesson_id = $3 AND passed AND quiz_id = $4 LIMIT 1`,
      [organizationId, userId, lessonId, quizId],
    );
    return rows.length > 0;
  }

  async insertSubmission(
    s: {
      organizationId: string;
      userId: string;
      courseId: string;
      lessonId: string;
      quizId: string;
      score: number;
      passed: boolean;
      answers: unknown;
      now: Date;
    },
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO quiz_submissions (organization_id, user_id, course_id, lesson_id, quiz_id, score, passed, answers, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [
        s.organizationId,
        s.userId,
        s.courseId,
        s.lessonId,
        s.quizId,
        s.score,
        s.passed,
        JSON.stringify(s.answers),
        s.now,
      ],
    );
    return rows[0].id;
  }

  /** Enrollments of these people (optionally in these courses) in the organization, by the enrollments key. */
  progressOf(organizationId: string, userIds: string[], courseIds?: string[]): Promise<ProgressRow[]> {
    if (userIds.length === 0 || courseIds?.length === 0) return Promise.resolve([]);
    return this.dataSource.query<ProgressRow[]>(
      `SELECT e.user_id, ${ENROLLMENT_COLUMNS} FROM enrollments e
       WHERE ${orgEq(1, 'e')} AND e.user_id = ANY($2::uuid[]) AND ($3::uuid[] IS NULL OR e.course_id = ANY($3::uuid[]))
       ORDER BY e.user_id, e.enrolled_at, e.course_id`,
      [organizationId, userIds, courseIds ?? null],
    );
  }

  async countInOrganization(organizationId: string): Promise<number> {
    const rows = await this.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM enrollments WHERE ${orgEq(1)}`,
      [organizationId],
    );
    return rows[0]?.n ?? 0;
  }

  /** Whether anyone, in any organization, is enrolled in the course (the catalog is shared). */
  async anyEnrollment(courseId: string, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<unknown[]>(
      `${tenancyExempt('cross-organization-existence')} SELECT 1 FROM enrollments WHERE course_id = $1 LIMIT 1`,
      [courseId],
    );
    return rows.length > 0;
  }
}
