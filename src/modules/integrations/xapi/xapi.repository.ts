import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { orgEq } from '@/core/database/tenancy';

export type SourceKind =
  'enrollment' | 'lesson_completion' | 'quiz_submission' | 'course_completion' | 'exam_session' | 'program_completion';

/** One learning record as the statement needs it. */
export interface SourceRow {
  kind: SourceKind;
  source_id: string;
  /** Microseconds since the epoch (PostgreSQL's precision), as text: the cursor keeps all of it. */
  stored_us: string;
  stored: Date;
  user_id: string;
  object_id: string;
  title: string;
  language: string | null;
  course_id: string | null;
  course_title: string | null;
  course_language: string | null;
  score: number | null;
  passed: boolean | null;
}

export interface SourceFilter {
  organizationId: string;
  kinds: readonly SourceKind[];
  /** Only passed (true) or failed (false) assessments; null: both. */
  passed: boolean | null;
  userId: string | null;
  /** Exclusive, microseconds. */
  sinceUs: string | null;
  /** Inclusive, microseconds. */
  untilUs: string | null;
}

const US = (column: string): string => `(floor(extract(epoch FROM ${column}) * 1000000))::bigint`;

/**
 * Every learning record of an organization as one ordered source of xAPI statements (extensions-v2 25.4): a
 * read-only union over the learning tables (enrollments, lesson completions, quiz submissions, exam sessions,
 * program completions) with the catalog's titles. Nothing is stored twice.
 */
const SOURCES: Record<SourceKind, string> = {
  enrollment: `SELECT 'enrollment' AS kind, e.id::text AS source_id, e.enrolled_at AS stored, e.user_id,
      c.id::text AS object_id, c.title, c.language, NULL::uuid AS course_id, NULL AS course_title,
      NULL AS course_language, NULL::int AS score, NULL::boolean AS passed
    FROM enrollments_read e JOIN courses_read c ON c.id = e.course_id WHERE ${orgEq(1, 'e')}`,
  lesson_completion: `SELECT 'lesson_completion', lc.organization_id || ':' || lc.user_id || ':' || lc.lesson_id,
      lc.completed_at, lc.user_id, l.id::text, l.title, c.language, c.id, c.title, c.language, NULL::int, NULL::boolean
    FROM lesson_completions_read lc JOIN lessons_read l ON l.id = lc.lesson_id JOIN courses_read c ON c.id = lc.course_id
    WHERE ${orgEq(1, 'lc')}`,
  quiz_submission: `SELECT 'quiz_submission', s.id::text, s.submitted_at, s.user_id, s.lesson_id::text, l.title,
      c.language, c.id, c.title, c.language, s.score, s.passed
    FROM quiz_submissions_read s JOIN lessons_read l ON l.id = s.lesson_id JOIN courses_read c ON c.id = s.course_id
    WHERE ${orgEq(1, 's')}`,
  course_completion: `SELECT 'course_completion', e.id::text, e.completed_at, e.user_id, c.id::text, c.title, c.language,
      NULL::uuid, NULL, NULL, NULL::int, NULL::boolean
    FROM enrollments_read e JOIN courses_read c ON c.id = e.course_id WHERE ${orgEq(1, 'e')} AND e.completed_at IS NOT NULL`,
  exam_session: `SELECT 'exam_session', x.id::text, x.submitted_at, x.user_id, x.exam_id::text, ex.title, c.language,
      c.id, c.title, c.language, x.score, COALESCE(x.passed, false)
    FROM exam_sessions_read x JOIN exams_read ex ON ex.id = x.exam_id JOIN courses_read c ON c.id = x.course_id
    WHERE ${orgEq(1, 'x')} AND x.status = 'submitted' AND x.review_status <> 'voided'
      AND x.submitted_at IS NOT NULL`,
  program_completion: `SELECT 'program_completion', pc.organization_id || ':' || pc.user_id || ':' || pc.path_id,
      pc.completed_at, pc.user_id, p.id::text, p.title, NULL, NULL::uuid, NULL, NULL, NULL::int, NULL::boolean
    FROM program_completions_read pc JOIN learning_paths_read p ON p.id = pc.path_id WHERE ${orgEq(1, 'pc')}`,
};

@Injectable()
export class XapiRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The records stored exactly at `atUs` (the ties of a cursor's position: their order by statement id is decided
   * by the caller, which computes the ids).
   */
  async at(filter: SourceFilter, atUs: string): Promise<SourceRow[]> {
    return this.query(filter, `s.stored_us = $2::bigint`, atUs, '');
  }

  /**
   * The first `count` records stored after `afterUs` (or from the start), by `stored`, plus every record tied with
   * the last one (so a group of equal times is never split between pages).
   */
  async after(filter: SourceFilter, afterUs: string | null, count: number): Promise<SourceRow[]> {
    return this.query(
      filter,
      `($2::bigint IS NULL OR s.stored_us > $2::bigint)`,
      afterUs,
      `ORDER BY s.stored_us FETCH FIRST ${Math.max(1, Math.floor(count))} ROWS WITH TIES`,
    );
  }

  private async query(
    filter: SourceFilter,
    where: string,
    position: string | null,
    tail: string,
  ): Promise<SourceRow[]> {
    if (filter.kinds.length === 0) return [];
    const union = filter.kinds.map((k) => SOURCES[k]).join('\nUNION ALL\n');
    // bigint comes back from node-postgres as a string: the microseconds are kept whole.
    return this.dataSource.query<SourceRow[]>(
      `SELECT * FROM (
         SELECT u.kind, u.source_id, u.stored, ${US('u.stored')} AS stored_us, u.user_id, u.object_id, u.title,
           u.language, u.course_id, u.course_title, u.course_language, u.score, u.passed
         FROM (${union}) AS u (kind, source_id, stored, user_id, object_id, title, language, course_id, course_title,
           course_language, score, passed)
         WHERE ($3::uuid IS NULL OR u.user_id = $3)
           AND ($4::boolean IS NULL OR u.kind NOT IN ('quiz_submission', 'exam_session') OR u.passed = $4)
       ) s
       WHERE ${where}
         AND ($5::bigint IS NULL OR s.stored_us > $5::bigint)
         AND ($6::bigint IS NULL OR s.stored_us <= $6::bigint)
       ${tail}`,
      [filter.organizationId, position, filter.userId, filter.passed, filter.sinceUs, filter.untilUs],
    );
  }
}
