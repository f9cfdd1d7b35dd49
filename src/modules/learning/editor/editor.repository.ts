import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { textQuery, type CourseRow, type Language } from '@/modules/learning/courses';
import type { CourseStatus } from './dto/editor.dto';
import type { QuestionKind } from './quiz-rules';
import { chunkVectorSql, writeLessonChunks } from './lesson-chunks';
import { orgAny, tenancyExempt } from '@/core/database/tenancy';

/** A course as its authors see it: the catalog's row with its lesson count. */
export interface EditorCourseRow extends CourseRow {
  lessons_count: number;
}

/** The authored fields of a course. */
export type CourseValues = Pick<
  CourseRow,
  | 'slug'
  | 'title'
  | 'summary'
  | 'description_md'
  | 'language'
  | 'level'
  | 'tags'
  | 'visibility'
  | 'issues_certificate'
  | 'estimated_minutes'
>;

export interface EditorLessonRow {
  id: string;
  course_id: string;
  position: number;
  title: string;
  content_md: string;
  estimated_minutes: number;
  created_at: Date;
  updated_at: Date;
}

export interface LessonValues {
  title: string;
  content_md: string;
  estimated_minutes: number;
}

export interface QuizValues {
  passing_score: number;
  questions: {
    prompt: string;
    kind: QuestionKind;
    explanation: string | null;
    options: { text: string; correct: boolean }[];
  }[];
}

/** What the SEO pages need of a published course. */
export type SeoCourseRow = Pick<
  CourseRow,
  'id' | 'slug' | 'title' | 'summary' | 'description_md' | 'language' | 'level' | 'tags' | 'estimated_minutes'
> & { lessons: { position: number; title: string; estimated_minutes: number }[] };

const COLUMNS = `c.id, c.slug, c.title, c.summary, c.description_md, c.language, c.level, c.tags, c.visibility, c.status,
  c.issues_certificate, c.estimated_minutes, c.published_at, c.created_at, c.updated_at,
  (SELECT count(*)::int FROM lessons l WHERE l.course_id = c.id) AS lessons_count`;
const LESSON_COLUMNS = `id, course_id, position, title, content_md, estimated_minutes, created_at, updated_at`;

/**
 * Authoring writes of the shared catalog (courses, their organizations, lessons and quizzes). Only the editor
 * area writes these tables; the courses area reads them. Lesson positions are rewritten in one statement each
 * time: the (course_id, position) unique constraint is deferrable, so it is checked at the end of the statement.
 */
@Injectable()
export class EditorRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(courseId: string, tx?: Tx): Promise<EditorCourseRow | null> {
    const rows = await db(this.dataSource, tx).query<EditorCourseRow[]>(
      `SELECT ${COLUMNS} FROM courses c WHERE c.id = $1`,
      [courseId],
    );
    return rows[0] ?? null;
  }

  /** The course, locked until the transaction ends: authoring changes of one course run one at a time. */
  async lock(courseId: string, tx: Tx): Promise<EditorCourseRow | null> {
    const locked = await tx.manager.query<unknown[]>(`SELECT 1 FROM courses WHERE id = $1 FOR UPDATE`, [courseId]);
    return locked.length ? this.find(courseId, tx) : null;
  }

  async slugTaken(slug: string, exceptId?: string, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<unknown[]>(
      `SELECT 1 FROM courses WHERE slug = $1 AND ($2::uuid IS NULL OR id <> $2)`,
      [slug, exceptId ?? null],
    );
    return rows.length > 0;
  }

  /**
   * A page of every course, most recently created first. `status` is served by `courses_catalog_idx`, `q` by the
   * GIN index on `search_vector` (or the slug's unique index).
   */
  async list(
    filter: { status?: CourseStatus; q?: string },
    page: { limit: number; offset: number },
  ): Promise<{ rows: EditorCourseRow[]; total: number }> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (filter.status) {
      params.push(filter.status);
      where.push(`c.status = $${params.length}`);
    }
    if (filter.q) {
      params.push(filter.q);
      where.push(`(c.search_vector @@ ${textQuery(`$${params.length}`)} OR c.slug = lower($${params.length}))`);
    }
    const condition = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const [rows, count] = await Promise.all([
      this.dataSource.query<EditorCourseRow[]>(
        `SELECT ${COLUMNS} FROM courses c ${condition}
         ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(`SELECT count(*)::int AS total FROM courses c ${condition}`, params),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  async insert(values: CourseValues, createdBy: string, now: Date, tx: Tx): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO courses (slug, title, summary, description_md, language, level, tags, visibility, status,
         issues_certificate, estimated_minutes, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'draft', $9, $10, $11, $12, $12) RETURNING id`,
      [
        values.slug,
        values.title,
        values.summary,
        values.description_md,
        values.language,
        values.level,
        values.tags,
        values.visibility,
        values.issues_certificate,
        values.estimated_minutes,
        createdBy,
        now,
      ],
    );
    return rows[0].id;
  }

  async update(courseId: string, values: CourseValues, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE courses SET slug = $2, title = $3, summary = $4, description_md = $5, language = $6, level = $7,
         tags = $8, visibility = $9, issues_certificate = $10, estimated_minutes = $11, updated_at = $12
       WHERE id = $1`,
      [
        courseId,
        values.slug,
        values.title,
        values.summary,
        values.description_md,
        values.language,
        values.level,
        values.tags,
        values.visibility,
        values.issues_certificate,
        values.estimated_minutes,
        now,
      ],
    );
  }

  async setStatus(courseId: string, status: CourseStatus, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE courses SET status = $2, updated_at = $3,
         published_at = CASE WHEN $2 = 'published' THEN $3 ELSE published_at END
       WHERE id = $1`,
      [courseId, status, now],
    );
  }

  async touch(courseId: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(`UPDATE courses SET updated_at = $2 WHERE id = $1`, [courseId, now]);
  }

  /**
   * `lessons.language` mirrors the course's (a generated column cannot read another table), and so do the vectors
   * of the lessons' passages.
   */
  async syncLessonLanguage(courseId: string, language: Language, tx: Tx): Promise<void> {
    await tx.manager.query(`UPDATE lessons SET language = $2 WHERE course_id = $1 AND language <> $2`, [
      courseId,
      language,
    ]);
    await tx.manager.query(
      `UPDATE lesson_chunks ch SET language = $2::text, search_vector = ${chunkVectorSql('$2::text', 'l.title', 'ch.text')}
       FROM lessons l WHERE l.id = ch.lesson_id AND ch.course_id = $1 AND ch.language <> $2`,
      [courseId, language],
    );
  }

  /** Rewrites the lesson's passages (retrieval for the tutor) from its current title and content. */
  async writeChunks(
    lesson: { id: string; course_id: string; title: string; content_md: string; language: Language },
    tx: Tx,
  ): Promise<void> {
    await writeLessonChunks((sql, params) => tx.manager.query(sql, params), lesson);
  }

  async delete(courseId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM courses WHERE id = $1`, [courseId]);
  }

  async organizationIds(courseId: string, tx?: Tx): Promise<string[]> {
    const rows = await db(this.dataSource, tx).query<{ organization_id: string }[]>(
      `${tenancyExempt('platform-catalog')} SELECT organization_id FROM course_organizations WHERE course_id = $1 ORDER BY organization_id`,
      [courseId],
    );
    return rows.map((r) => r.organization_id);
  }

  /** Replaces the list; an organization that does not exist fails the foreign key (the caller answers 422). */
  async setOrganizations(courseId: string, organizationIds: string[], tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM course_organizations WHERE course_id = $1 AND NOT (${orgAny(2)})`, [
      courseId,
      organizationIds,
    ]);
    await tx.manager.query(
      `INSERT INTO course_organizations (course_id, organization_id)
       SELECT $1, o FROM unnest($2::uuid[]) AS o ON CONFLICT DO NOTHING`,
      [courseId, organizationIds],
    );
  }

  lessons(courseId: string, tx?: Tx): Promise<EditorLessonRow[]> {
    return db(this.dataSource, tx).query<EditorLessonRow[]>(
      `SELECT ${LESSON_COLUMNS} FROM lessons WHERE course_id = $1 ORDER BY position`,
      [courseId],
    );
  }

  async lesson(courseId: string, lessonId: string, tx?: Tx): Promise<EditorLessonRow | null> {
    const rows = await db(this.dataSource, tx).query<EditorLessonRow[]>(
      `SELECT ${LESSON_COLUMNS} FROM lessons WHERE course_id = $1 AND id = $2`,
      [courseId, lessonId],
    );
    return rows[0] ?? null;
  }

  /** Lesson ids of the course in position order. */
  async order(courseId: string, tx: Tx): Promise<string[]> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `SELECT id FROM lessons WHERE course_id = $1 ORDER BY position`,
      [courseId],
    );
    return rows.map((r) => r.id);
  }

  /** Appends a lesson (the caller then moves it where it belongs). */
  async insertLesson(
    courseId: string,
    values: LessonValues,
    position: number,
    language: Language,
    now: Date,
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO lessons (course_id, position, title, content_md, estimated_minutes, language, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
      [courseId, position, values.title, values.content_md, values.estimated_minutes, language, now],
    );
    return rows[0].id;
  }

  async updateLesson(courseId: string, lessonId: string, values: LessonValues, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE lessons SET title = $3, content_md = $4, estimated_minutes = $5, updated_at = $6
       WHERE course_id = $1 AND id = $2`,
      [courseId, lessonId, values.title, values.content_md, values.estimated_minutes, now],
    );
  }

  async deleteLesson(courseId: string, lessonId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM lessons WHERE course_id = $1 AND id = $2`, [courseId, lessonId]);
  }

  /** Positions 1..n in the given order, in one statement (rows already there are left alone). */
  async setOrder(courseId: string, order: string[], tx: Tx): Promise<void> {
    if (order.length === 0) return;
    await tx.manager.query(
      `UPDATE lessons l SET position = o.position::int
       FROM unnest($2::uuid[]) WITH ORDINALITY AS o(id, position)
       WHERE l.course_id = $1 AND l.id = o.id AND l.position <> o.position`,
      [courseId, order],
    );
  }

  /**
   * Creates or replaces the lesson's quiz. The quiz row (and so the submissions and passes recorded against it)
   * stays; its questions and options are replaced.
   */
  async replaceQuiz(lessonId: string, quiz: QuizValues, tx: Tx): Promise<void> {
    const [{ id: quizId }] = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO quizzes (lesson_id, passing_score) VALUES ($1, $2)
       ON CONFLICT (lesson_id) DO UPDATE SET passing_score = EXCLUDED.passing_score RETURNING id`,
      [lessonId, quiz.passing_score],
    );
    await tx.manager.query(`DELETE FROM quiz_questions WHERE quiz_id = $1`, [quizId]);
    await this.insertQuestions(quizId, quiz.questions, 0, tx);
  }

  /** Inserts questions (with their options) at positions after `after`. */
  private async insertQuestions(quizId: string, list: QuizValues['questions'], after: number, tx: Tx): Promise<void> {
    const questions = await tx.manager.query<{ id: string; position: number }[]>(
      `INSERT INTO quiz_questions (quiz_id, position, prompt, kind, explanation)
       SELECT $1, q.position::int + $5, q.prompt, q.kind, q.explanation
       FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS q(prompt, kind, explanation, position)
       RETURNING id, position`,
      [quizId, list.map((q) => q.prompt), list.map((q) => q.kind), list.map((q) => q.explanation), after],
    );
    const idAt = new Map(questions.map((q) => [Number(q.position), q.id]));
    const questionIds: string[] = [];
    const positions: number[] = [];
    const texts: string[] = [];
    const correct: boolean[] = [];
    list.forEach((q, i) => {
      q.options.forEach((o, j) => {
        questionIds.push(idAt.get(after + i + 1)!);
        positions.push(j + 1);
        texts.push(o.text);
        correct.push(o.correct);
      });
    });
    await tx.manager.query(
      `INSERT INTO quiz_options (question_id, position, text, correct)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::boolean[])`,
      [questionIds, positions, texts, correct],
    );
  }

  /**
   * Appends questions after the quiz's last one, keeping the existing questions and their ids (submissions refer to
   * them). A lesson without a quiz gets one with `passingScore`; a given `passingScore` also replaces the current one.
   */
  async appendQuiz(lessonId: string, quiz: QuizValues, keepPassingScore: boolean, tx: Tx): Promise<void> {
    const [{ id: quizId }] = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO quizzes (lesson_id, passing_score) VALUES ($1, $2)
       ON CONFLICT (lesson_id) DO UPDATE SET passing_score = CASE WHEN $3 THEN quizzes.passing_score ELSE EXCLUDED.passing_score END
       RETURNING id`,
      [lessonId, quiz.passing_score, keepPassingScore],
    );
    const [{ last }] = await tx.manager.query<{ last: number }[]>(
      `SELECT coalesce(max(position), 0)::int AS last FROM quiz_questions WHERE quiz_id = $1`,
      [quizId],
    );
    await this.insertQuestions(quizId, quiz.questions, last, tx);
  }

  async deleteQuiz(lessonId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM quizzes WHERE lesson_id = $1`, [lessonId]);
  }

  /**
   * Published courses with their lesson outlines, in pages by id (keyset), so a rebuild of the whole catalog never
   * holds it all in memory.
   */
  async publishedForSeo(afterId: string | null, limit: number): Promise<SeoCourseRow[]> {
    const courses = await this.dataSource.query<Omit<SeoCourseRow, 'lessons'>[]>(
      `SELECT id, slug, title, summary, description_md, language, level, tags, estimated_minutes FROM courses
       WHERE status = 'published' AND ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
    if (courses.length === 0) return [];
    const lessons = await this.dataSource.query<
      { course_id: string; position: number; title: string; estimated_minutes: number }[]
    >(
      `SELECT course_id, position, title, estimated_minutes FROM lessons
       WHERE course_id = ANY($1::uuid[]) ORDER BY course_id, position`,
      [courses.map((c) => c.id)],
    );
    const byCourse = new Map<string, SeoCourseRow['lessons']>();
    for (const { course_id, ...lesson } of lessons) {
      const list = byCourse.get(course_id) ?? [];
      list.push(lesson);
      byCourse.set(course_id, list);
    }
    return courses.map((c) => ({ ...c, lessons: byCourse.get(c.id) ?? [] }));
  }
}
