import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ActivityDelta {
  organizationId: string;
  userId: string;
  hour: Date;
  lessons_completed: number;
  quizzes_submitted: number;
  quizzes_passed: number;
  enrollments: number;
  completions: number;
  exams_submitted: number;
  reviews: number;
}

const COUNTERS = [
  'lessons_completed',
  'quizzes_submitted',
  'quizzes_passed',
  'enrollments',
  'completions',
  'exams_submitted',
  'reviews',
] as const;

type Row = Record<string, unknown>;
const n = (v: unknown): number => Number(v ?? 0);

/**
 * The statistics' reads. Counts come from the hourly activity aggregate (kept by the subscriber) and from the
 * learning tables through their organization- and person-led indexes; never from the event log.
 */
@Injectable()
export class StatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds a batch of counts (people or organizations deleted meanwhile are skipped). */
  async addActivity(deltas: ActivityDelta[], tx: Tx): Promise<void> {
    if (deltas.length === 0) return;
    const cols = COUNTERS.join(', ');
    await tx.manager.query(
      `INSERT INTO learning_activity_hourly (organization_id, user_id, hour, ${cols})
       SELECT d.organization_id, d.user_id, d.hour, ${COUNTERS.map((c) => `d.${c}`).join(', ')}
       FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[],
         $9::int[], $10::int[]) AS d (organization_id, user_id, hour, ${cols})
       WHERE EXISTS (SELECT 1 FROM users_read u WHERE u.id = d.user_id)
         AND EXISTS (SELECT 1 FROM organizations_read o WHERE o.id = d.organization_id)
       ON CONFLICT (organization_id, hour, user_id) DO UPDATE SET
         ${COUNTERS.map((c) => `${c} = learning_activity_hourly.${c} + EXCLUDED.${c}`).join(', ')}`,
      [
        deltas.map((d) => d.organizationId),
        deltas.map((d) => d.userId),
        deltas.map((d) => d.hour),
        ...COUNTERS.map((c) => deltas.map((d) => d[c])),
      ],
    );
  }

  // ---- organization ----

  /** People counted: the organization's members, or a cohort's students. `$1` org, `$2` cohort (nullable). */
  private static PEOPLE = `SELECT m.user_id, m.role, m.joined_at FROM memberships_read m WHERE ${orgEq(1, 'm')}
    AND ($2::uuid IS NULL OR EXISTS (SELECT 1 FROM cohort_members_read cm WHERE ${orgEq(1, 'cm')}
      AND cm.cohort_id = $2 AND cm.user_id = m.user_id AND cm.role = 'student'))`;

  async organization(
    organizationId: string,
    cohortId: string | null,
    from: Date,
    now: Date,
    zone: string,
  ): Promise<{ summary: Row; topCourses: Row[]; series: Row[] }> {
    const people = StatsRepository.PEOPLE;
    const [summary] = await this.dataSource.query<Row[]>(
      `WITH people AS (${people}),
       act AS (SELECT h.* FROM learning_activity_hourly h JOIN people p ON p.user_id = h.user_id
         WHERE ${orgEq(1, 'h')} AND h.hour >= date_trunc('hour', $4::timestamptz - interval '30 days')),
       enr AS (SELECT e.* FROM enrollments_read e JOIN people p ON p.user_id = e.user_id WHERE ${orgEq(1, 'e')}),
       ses AS (SELECT s.* FROM exam_sessions_read s JOIN people p ON p.user_id = s.user_id
         WHERE ${orgEq(1, 's')} AND s.started_at >= $3)
       SELECT
         (SELECT count(*) FROM people) AS members_total,
         (SELECT count(*) FROM people WHERE role = 'owner') AS owners,
         (SELECT count(*) FROM people WHERE role = 'admin') AS admins,
         (SELECT count(*) FROM people WHERE role = 'teacher') AS teachers,
         (SELECT count(*) FROM people WHERE role = 'student') AS students,
         (SELECT count(*) FROM people WHERE joined_at >= $3) AS joined_in_period,
         (SELECT count(DISTINCT user_id) FROM act WHERE hour >= date_trunc('hour', $4::timestamptz - interval '1 day'))
           AS active_day,
         (SELECT count(DISTINCT user_id) FROM act WHERE hour >= date_trunc('hour', $4::timestamptz - interval '7 days'))
           AS active_week,
         (SELECT count(DISTINCT user_id) FROM act) AS active_month,
         (SELECT count(*) FROM enr) AS enrollments_total,
         (SELECT count(*) FROM enr WHERE status = 'completed') AS enrollments_completed,
         (SELECT count(*) FROM enr WHERE enrolled_at >= $3) AS enrollments_in_period,
         (SELECT count(*) FROM enr WHERE completed_at >= $3) AS completed_in_period,
         (SELECT count(*) FROM issued_certificates_read c JOIN people p ON p.user_id = c.user_id
           WHERE ${orgEq(1, 'c')} AND c.issued_at >= $3) AS certificates_in_period,
         (SELECT count(*) FROM issued_certificates_read c JOIN people p ON p.user_id = c.user_id
           WHERE ${orgEq(1, 'c')} AND c.status = 'active') AS certificates_active,
         (SELECT count(*) FROM ses) AS sessions_in_period,
         (SELECT count(*) FROM ses WHERE status = 'submitted') AS sessions_submitted,
         (SELECT count(*) FROM ses WHERE passed) AS sessions_passed,
         (SELECT count(*) FROM ses WHERE flagged) AS sessions_flagged,
         (SELECT coalesce(sum(h.reviews), 0) FROM learning_activity_hourly h JOIN people p ON p.user_id = h.user_id
           WHERE ${orgEq(1, 'h')} AND h.hour >= date_trunc('hour', $3::timestamptz)) AS reviews_in_period`,
      [organizationId, cohortId, from, now],
    );
    const topCourses = await this.dataSource.query<Row[]>(
      `WITH people AS (${people})
       SELECT e.course_id, c.title, count(*) FILTER (WHERE e.enrolled_at >= $3) AS enrollments_in_period,
         count(*) FILTER (WHERE e.completed_at >= $3) AS completions_in_period
       FROM enrollments_read e JOIN people p ON p.user_id = e.user_id JOIN courses_read c ON c.id = e.course_id
       WHERE ${orgEq(1, 'e')} AND (e.enrolled_at >= $3 OR e.completed_at >= $3)
       GROUP BY e.course_id, c.title
       ORDER BY enrollments_in_period DESC, completions_in_period DESC, c.title, e.course_id LIMIT 10`,
      [organizationId, cohortId, from],
    );
    const series = await this.dataSource.query<Row[]>(
      `WITH people AS (${people})
       SELECT to_char(h.hour AT TIME ZONE $4, 'YYYY-MM-DD') AS date, count(DISTINCT h.user_id) AS active_users,
         sum(h.lessons_completed) AS lessons_completed, sum(h.enrollments) AS enrollments,
         sum(h.completions) AS completions
       FROM learning_activity_hourly h JOIN people p ON p.user_id = h.user_id
       WHERE ${orgEq(1, 'h')} AND h.hour >= date_trunc('hour', $3::timestamptz) GROUP BY 1`,
      [organizationId, cohortId, from, zone],
    );
    return { summary, topCourses, series };
  }

  /** Whether the cohort is the organization's, and whether the person teaches it. */
  async cohort(organizationId: string, cohortId: string, userId: string): Promise<{ teaches: boolean } | null> {
    const rows = await this.dataSource.query<{ teaches: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM cohort_members_read cm WHERE cm.cohort_id = c.id AND cm.user_id = $3
         AND cm.role = 'teacher') AS teaches
       FROM cohorts_read c WHERE ${orgEq(1, 'c')} AND c.id = $2`,
      [organizationId, cohortId, userId],
    );
    return rows[0] ?? null;
  }

  // ---- me ----

  async personal(
    userId: string,
    organizationId: string | null,
    from: Date,
    zone: string,
  ): Promise<{ summary: Row; series: Row[]; days: string[] }> {
    const [summary] = await this.dataSource.query<Row[]>(
      `SELECT
         (SELECT count(*) FROM enrollments_read e WHERE e.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 'e')}))
           AS enrolled,
         (SELECT count(*) FROM enrollments_read e WHERE e.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 'e')})
           AND e.status = 'completed') AS completed,
         (SELECT count(*) FROM lesson_completions_read l WHERE l.user_id = $1
           AND ($2::uuid IS NULL OR ${orgEq(2, 'l')}) AND l.completed_at >= $3) AS lessons_completed,
         q.submitted, q.passed, q.average_score, x.sessions, x.passed AS exams_passed,
         (SELECT coalesce(sum(h.reviews), 0) FROM learning_activity_hourly h WHERE h.user_id = $1
           AND ($2::uuid IS NULL OR ${orgEq(2, 'h')}) AND h.hour >= date_trunc('hour', $3::timestamptz))
           AS reviews
       FROM (SELECT count(*) AS submitted, count(*) FILTER (WHERE passed) AS passed, round(avg(score))::int AS average_score
             FROM quiz_submissions_read s WHERE s.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 's')})
               AND s.submitted_at >= $3) q,
            (SELECT count(*) AS sessions, count(*) FILTER (WHERE passed) AS passed FROM exam_sessions_read s
             WHERE s.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 's')}) AND s.started_at >= $3) x`,
      [userId, organizationId, from],
    );
    const series = await this.dataSource.query<Row[]>(
      `SELECT to_char(h.hour AT TIME ZONE $4, 'YYYY-MM-DD') AS date, sum(h.lessons_completed) AS lessons_completed,
         sum(h.reviews) AS reviews
       FROM learning_activity_hourly h WHERE h.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 'h')})
         AND h.hour >= date_trunc('hour', $3::timestamptz) GROUP BY 1`,
      [userId, organizationId, from, zone],
    );
    const days = await this.dataSource.query<{ date: string }[]>(
      `SELECT DISTINCT to_char(h.hour AT TIME ZONE $3, 'YYYY-MM-DD') AS date FROM learning_activity_hourly h
       WHERE h.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 'h')}) ORDER BY 1`,
      [userId, organizationId, zone],
    );
    return { summary, series, days: days.map((d) => d.date) };
  }

  // ---- editor course ----

  async courseExists(courseId: string): Promise<boolean> {
    const rows = await this.dataSource.query<Row[]>(`SELECT 1 FROM courses_read WHERE id = $1`, [courseId]);
    return rows.length > 0;
  }

  async course(courseId: string, from: Date): Promise<{ summary: Row; ratings: Row[]; lessons: Row[]; exams: Row[] }> {
    const [summary] = await this.dataSource.query<Row[]>(
      `${tenancyExempt('platform-catalog')} SELECT count(*) AS enrollments_total, count(*) FILTER (WHERE enrolled_at >= $2) AS enrollments_in_period,
         count(*) FILTER (WHERE status = 'completed') AS completions_total,
         count(*) FILTER (WHERE completed_at >= $2) AS completions_in_period,
         count(DISTINCT organization_id) AS organizations
       FROM enrollments_read WHERE course_id = $1`,
      [courseId, from],
    );
    const ratings = await this.dataSource.query<Row[]>(
      `${tenancyExempt('platform-catalog')} SELECT stars, count(*) AS n FROM course_ratings_read WHERE course_id = $1 GROUP BY stars`,
      [courseId],
    );
    const lessons = await this.dataSource.query<Row[]>(
      `${tenancyExempt('platform-catalog')} SELECT l.id AS lesson_id, l.position, l.title,
         (SELECT count(*) FROM lesson_completions_read c WHERE c.lesson_id = l.id) AS completions,
         (SELECT count(*) FROM quizzes_read q WHERE q.lesson_id = l.id) AS has_quiz,
         (SELECT count(*) FROM quiz_submissions_read s WHERE s.lesson_id = l.id) AS submissions,
         (SELECT count(*) FROM quiz_submissions_read s WHERE s.lesson_id = l.id AND s.passed) AS passed,
         (SELECT round(avg(score))::int FROM quiz_submissions_read s WHERE s.lesson_id = l.id) AS average_score
       FROM lessons_read l WHERE l.course_id = $1 ORDER BY l.position`,
      [courseId],
    );
    const exams = await this.dataSource.query<Row[]>(
      `${tenancyExempt('platform-catalog')} SELECT e.id AS exam_id, e.title, count(s.id) AS sessions,
         count(s.id) FILTER (WHERE s.status = 'submitted') AS submitted,
         count(s.id) FILTER (WHERE s.passed) AS passed,
         round(avg(s.score) FILTER (WHERE s.status = 'submitted'))::int AS average_score
       FROM exams_read e LEFT JOIN exam_sessions_read s ON s.exam_id = e.id
       WHERE e.course_id = $1 GROUP BY e.id, e.title ORDER BY e.title, e.id`,
      [courseId],
    );
    return { summary, ratings, lessons, exams };
  }

  // ---- platform ----

  async platform(from: Date, now: Date): Promise<{ summary: Row; series: Row[]; newUsers: Row[] }> {
    const [summary] = await this.dataSource.query<Row[]>(
      `${tenancyExempt('platform-admin')} SELECT
         (SELECT count(*) FROM organizations_read) AS orgs_total,
         (SELECT count(*) FROM organizations_read WHERE status = 'active') AS orgs_active,
         (SELECT count(*) FROM organizations_read WHERE status = 'suspended') AS orgs_suspended,
         (SELECT count(*) FROM organizations_read WHERE created_at >= $1) AS orgs_created,
         (SELECT count(*) FROM users_read WHERE erased_at IS NULL) AS users_total,
         (SELECT count(*) FROM users_read WHERE created_at >= $1) AS users_created,
         (SELECT count(DISTINCT user_id) FROM learning_activity_hourly
           WHERE hour >= date_trunc('hour', $2::timestamptz - interval '1 day')) AS active_day,
         (SELECT count(DISTINCT user_id) FROM learning_activity_hourly
           WHERE hour >= date_trunc('hour', $2::timestamptz - interval '7 days')) AS active_week,
         (SELECT count(DISTINCT user_id) FROM learning_activity_hourly
           WHERE hour >= date_trunc('hour', $2::timestamptz - interval '30 days')) AS active_month,
         (SELECT count(*) FROM courses_read WHERE status = 'published') AS courses_published,
         (SELECT count(*) FROM courses_read WHERE status <> 'published') AS courses_draft,
         (SELECT count(*) FROM enrollments_read) AS enrollments_total,
         (SELECT count(*) FROM enrollments_read WHERE enrolled_at >= $1) AS enrollments_in_period,
         (SELECT count(*) FROM issued_certificates_read) AS certificates_total,
         (SELECT count(*) FROM issued_certificates_read WHERE issued_at >= $1) AS certificates_in_period,
         (SELECT count(*) FROM ai_usage_read WHERE occurred_at >= $1) AS ai_requests,
         (SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM ai_usage_read WHERE occurred_at >= $1) AS ai_tokens`,
      [from, now],
    );
    const series = await this.dataSource.query<Row[]>(
      `${tenancyExempt('platform-admin')} SELECT to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(DISTINCT user_id) AS active_users,
         sum(enrollments) AS enrollments
       FROM learning_activity_hourly WHERE hour >= $1 GROUP BY 1`,
      [from],
    );
    const newUsers = await this.dataSource.query<Row[]>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(*) AS n FROM users_read
       WHERE created_at >= $1 GROUP BY 1`,
      [from],
    );
    return { summary, series, newUsers };
  }
}

export { n as toNumber };
