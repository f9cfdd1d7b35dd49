import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { orgEq } from '@/core/database/tenancy';

type Row = Record<string, unknown>;

/**
 * Read-only look-ups of one student's learning in an organization for the teacher's detail view (16.4): one
 * query per block over the learning tables' person-led keys (through services it would take a call per course,
 * lesson and exam). Writes stay with their areas.
 */
@Injectable()
export class TeacherRepository {
  constructor(private readonly dataSource: DataSource) {}

  async isStudentOf(organizationId: string, cohortId: string, userId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM cohort_members_read WHERE ${orgEq(1)} AND cohort_id = $2 AND user_id = $3 AND role = 'student'`,
      [organizationId, cohortId, userId],
    );
    return rows.length > 0;
  }

  async courses(organizationId: string, userId: string): Promise<Row[]> {
    return this.dataSource.query<Row[]>(
      `SELECT e.course_id, c.title, e.status, e.last_activity_at,
         (SELECT count(*)::int FROM lessons_read l WHERE l.course_id = e.course_id) AS lessons_total,
         (SELECT count(*)::int FROM lesson_completions_read x WHERE x.organization_id = e.organization_id
            AND x.user_id = e.user_id AND x.course_id = e.course_id) AS lessons_completed,
         coalesce((SELECT jsonb_agg(jsonb_build_object('lesson_id', q.lesson_id, 'lesson_title', q.lesson_title,
             'attempts', q.attempts, 'best_score', q.best_score, 'passed', q.passed) ORDER BY q.position)
           FROM (SELECT s.lesson_id, l.title AS lesson_title, l.position, count(*)::int AS attempts,
                   max(s.score) AS best_score, bool_or(s.passed) AS passed
                 FROM quiz_submissions_read s JOIN lessons_read l ON l.id = s.lesson_id
                 WHERE s.organization_id = e.organization_id AND s.user_id = e.user_id AND s.course_id = e.course_id
                 GROUP BY s.lesson_id, l.title, l.position) q), '[]'::jsonb) AS quizzes
       FROM enrollments_read e JOIN courses_read c ON c.id = e.course_id
       WHERE ${orgEq(1, 'e')} AND e.user_id = $2 ORDER BY c.title, e.course_id`,
      [organizationId, userId],
    );
  }

  async exams(organizationId: string, userId: string): Promise<Row[]> {
    return this.dataSource.query<Row[]>(
      `SELECT s.exam_id, x.title, count(*) FILTER (WHERE s.counts_as_attempt)::int AS attempts,
         max(s.score) FILTER (WHERE s.review_status <> 'voided') AS best_score,
         coalesce(bool_or(s.passed AND s.review_status <> 'voided'), false) AS passed,
         count(*) FILTER (WHERE s.flagged)::int AS flagged_sessions
       FROM exam_sessions_read s JOIN exams_read x ON x.id = s.exam_id
       WHERE ${orgEq(1, 's')} AND s.user_id = $2 GROUP BY s.exam_id, x.title ORDER BY x.title, s.exam_id`,
      [organizationId, userId],
    );
  }

  /** The student's active local days in the organization (from the statistics' hourly aggregate), ascending. */
  async activeDays(organizationId: string, userId: string, zone: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ date: string }[]>(
      `SELECT DISTINCT to_char(hour AT TIME ZONE $3, 'YYYY-MM-DD') AS date FROM learning_activity_hourly_read
       WHERE ${orgEq(1)} AND user_id = $2 ORDER BY 1`,
      [organizationId, userId, zone],
    );
    return rows.map((r) => r.date);
  }
}
