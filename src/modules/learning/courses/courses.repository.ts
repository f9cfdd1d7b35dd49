import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { isUuid } from '@/core/http/uuid';
import { catalogConditions, visibleTo, type CatalogFilter } from './catalog-sql';
import type {
  CardRow,
  CourseRow,
  LessonRow,
  OutlineRow,
  QuizOptionRow,
  QuizQuestionRow,
  QuizRow,
} from './courses.types';
import { tenancyExempt } from '@/core/database/tenancy';

/** A passage of a lesson (extensions-v2 23.2). */
export interface ChunkRow {
  id: string;
  position: number;
  text: string;
}

export interface RatingRow {
  course_id: string;
  stars: number;
  comment: string | null;
  created_at: Date;
  updated_at: Date;
}

export const COURSE_COLUMNS = `c.id, c.slug, c.title, c.summary, c.description_md, c.language, c.level, c.tags, c.visibility,
  c.status, c.issues_certificate, c.estimated_minutes, c.published_at, c.created_at, c.updated_at`;

/** Card columns of `c`: lesson count by the lessons (course_id, position) key, rating by the ratings primary key. */
const CARD_COLUMNS = `${COURSE_COLUMNS},
  (SELECT count(*)::int FROM lessons_read l WHERE l.course_id = c.id) AS lessons_count,
  r.rating_average, r.rating_count`;
const RATING_JOIN = `${tenancyExempt('platform-catalog')} LEFT JOIN LATERAL (
    SELECT round(avg(cr.stars)::numeric, 1)::float8 AS rating_average, count(*)::int AS rating_count
    FROM course_ratings cr WHERE cr.course_id = c.id) r ON true`;

/**
 * Reads of the shared catalog for learners (courses, lessons, quizzes, ratings). The catalog is platform data, not
 * tenant data: what an organization may see is decided by `visibleTo`, applied to every organization-facing read.
 */
@Injectable()
export class CoursesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Any course by id or slug, whatever its status (callers decide what the caller may see). */
  async findByIdOrSlug(idOrSlug: string, tx?: Tx): Promise<CourseRow | null> {
    const byId = isUuid(idOrSlug);
    const rows = await db(this.dataSource, tx).query<CourseRow[]>(
      `SELECT ${COURSE_COLUMNS} FROM courses_read c WHERE ${byId ? 'c.id = $1' : 'c.slug = $1'}`,
      [idOrSlug.toLowerCase()],
    );
    return rows[0] ?? null;
  }

  async isVisible(organizationId: string, courseId: string, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<unknown[]>(
      `SELECT 1 FROM courses_read c WHERE c.id = $2 AND ${visibleTo('c', 1)}`,
      [organizationId, courseId],
    );
    return rows.length > 0;
  }

  /**
   * A page of the organization's catalog, newest published first (ties by id). Served by
   * `courses_published_order_idx` (the order, with language, level and visibility in the index) and the GIN
   * indexes on `search_vector` (q) and `tags` (tag).
   */
  async catalogPage(
    organizationId: string,
    filter: CatalogFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: CardRow[]; total: number }> {
    const params: unknown[] = [organizationId];
    const where = [visibleTo('c', 1), ...catalogConditions(filter, params)];
    const condition = where.join(' AND ');
    const [rows, count] = await Promise.all([
      this.dataSource.query<CardRow[]>(
        `WITH page AS (
           SELECT c.id, c.published_at FROM courses_read c WHERE ${condition}
           ORDER BY c.published_at DESC, c.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}
         )
         SELECT ${CARD_COLUMNS} FROM page p JOIN courses_read c ON c.id = p.id ${RATING_JOIN}
         ORDER BY p.published_at DESC, p.id DESC`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM courses_read c WHERE ${condition}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  /** Cards of these courses, whatever their status (an enrolled learner keeps seeing what they enrolled in). */
  async cards(courseIds: string[]): Promise<CardRow[]> {
    if (courseIds.length === 0) return [];
    return this.dataSource.query<CardRow[]>(
      `SELECT ${CARD_COLUMNS} FROM courses_read c ${RATING_JOIN} WHERE c.id = ANY($1::uuid[])`,
      [courseIds],
    );
  }

  async outline(courseId: string, tx?: Tx): Promise<OutlineRow[]> {
    return db(this.dataSource, tx).query<OutlineRow[]>(
      `SELECT l.id, l.position, l.title, l.estimated_minutes,
         EXISTS (SELECT 1 FROM quizzes_read q WHERE q.lesson_id = l.id) AS has_quiz
       FROM lessons_read l WHERE l.course_id = $1 ORDER BY l.position`,
      [courseId],
    );
  }

  async lesson(courseId: string, lessonId: string, tx?: Tx): Promise<LessonRow | null> {
    const rows = await db(this.dataSource, tx).query<LessonRow[]>(
      `SELECT l.id, l.course_id, l.position, l.title, l.content_md, l.estimated_minutes,
         EXISTS (SELECT 1 FROM quizzes_read q WHERE q.lesson_id = l.id) AS has_quiz
       FROM lessons_read l WHERE l.course_id = $1 AND l.id = $2`,
      [courseId, lessonId],
    );
    return rows[0] ?? null;
  }

  /**
   * The course and one of its lessons (id and whether it has a quiz), in one statement; null when the lesson is not
   * the course's.
   */
  async courseLesson(courseId: string, lessonId: string): Promise<{ course: CourseRow; hasQuiz: boolean } | null> {
    const rows = await this.dataSource.query<(CourseRow & { lesson_has_quiz: boolean })[]>(
      `SELECT ${COURSE_COLUMNS}, EXISTS (SELECT 1 FROM quizzes_read q WHERE q.lesson_id = l.id) AS lesson_has_quiz
       FROM courses_read c JOIN lessons_read l ON l.course_id = c.id WHERE c.id = $1 AND l.id = $2`,
      [courseId, lessonId],
    );
    if (rows.length === 0) return null;
    const { lesson_has_quiz: hasQuiz, ...course } = rows[0];
    return { course, hasQuiz };
  }

  /** The quizzes of these lessons with their questions and options in order (three queries for any number). */
  async quizzes(lessonIds: string[], tx?: Tx): Promise<Map<string, QuizRow>> {
    const out = new Map<string, QuizRow>();
    if (lessonIds.length === 0) return out;
    const manager = db(this.dataSource, tx);
    const quizzes = await manager.query<{ id: string; lesson_id: string; passing_score: number }[]>(
      `SELECT id, lesson_id, passing_score FROM quizzes_read WHERE lesson_id = ANY($1::uuid[])`,
      [lessonIds],
    );
    if (quizzes.length === 0) return out;
    const quizIds = quizzes.map((q) => q.id);
    const questions = await manager.query<(Omit<QuizQuestionRow, 'options'> & { quiz_id: string })[]>(
      `SELECT id, quiz_id, position, prompt, kind, explanation FROM quiz_questions_read
       WHERE quiz_id = ANY($1::uuid[]) ORDER BY quiz_id, position`,
      [quizIds],
    );
    const options = await manager.query<(QuizOptionRow & { question_id: string })[]>(
      `SELECT o.id, o.question_id, o.position, o.text, o.correct FROM quiz_options_read o
       JOIN quiz_questions_read qq ON qq.id = o.question_id
       WHERE qq.quiz_id = ANY($1::uuid[]) ORDER BY o.question_id, o.position`,
      [quizIds],
    );
    const optionsOf = new Map<string, QuizOptionRow[]>();
    for (const { question_id, ...option } of options) {
      const list = optionsOf.get(question_id) ?? [];
      list.push(option);
      optionsOf.set(question_id, list);
    }
    const byQuiz = new Map<string, QuizRow>();
    for (const q of quizzes) {
      const quiz: QuizRow = { ...q, questions: [] };
      byQuiz.set(q.id, quiz);
      out.set(q.lesson_id, quiz);
    }
    for (const { quiz_id, ...question } of questions) {
      byQuiz.get(quiz_id)?.questions.push({ ...question, options: optionsOf.get(question.id) ?? [] });
    }
    return out;
  }

  /** The passages of a lesson in order (`lesson_chunks_lesson_idx`). */
  async lessonChunks(courseId: string, lessonId: string, tx?: Tx): Promise<ChunkRow[]> {
    return db(this.dataSource, tx).query<ChunkRow[]>(
      `SELECT id, position, text FROM lesson_chunks_read WHERE lesson_id = $2 AND course_id = $1 ORDER BY position`,
      [courseId, lessonId],
    );
  }

  /**
   * One rating per person and course: a repeat replaces stars and comment. `changed` is false only for a repeat
   * identical to the rating it replaces (same stars, comment and organization), read under the row's lock.
   */
  async upsertRating(
    organizationId: string,
    userId: string,
    courseId: string,
    stars: number,
    comment: string | null,
    now: Date,
    tx: Tx,
  ): Promise<{ rating: RatingRow; changed: boolean }> {
    const [before] = await tx.manager.query<{ stars: number; comment: string | null; organization_id: string }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT stars, comment, organization_id FROM course_ratings WHERE course_id = $1 AND user_id = $2 FOR UPDATE`,
      [courseId, userId],
    );
    const rows = await tx.manager.query<RatingRow[]>(
      `INSERT INTO course_ratings (course_id, user_id, organization_id, stars, comment, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (course_id, user_id) DO UPDATE
         SET stars = EXCLUDED.stars, comment = EXCLUDED.comment, organization_id = EXCLUDED.organization_id,
             updated_at = EXCLUDED.updated_at
       RETURNING course_id, stars, comment, created_at, updated_at`,
      [courseId, userId, organizationId, stars, comment, now],
    );
    const changed =
      !before || before.stars !== stars || before.comment !== comment || before.organization_id !== organizationId;
    return { rating: rows[0], changed };
  }
}
