import type { MigrationInterface, QueryRunner } from 'typeorm';
import { writeLessonChunks } from './frozen/lesson-chunks-1763758000000';

const BATCH = 200;

/**
 * Passages of every existing lesson, written with the same rules (and so the same stable ids) the editor applies
 * to each lesson write from now on. Lessons are read in pages by id, so a large catalog never sits in memory.
 */
export async function backfillLessonChunks(q: QueryRunner): Promise<number> {
  let after: string | null = null;
  let written = 0;
  for (;;) {
    const lessons = (await q.query(
      `SELECT id, course_id, title, content_md, language FROM lessons
         WHERE ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2`,
      [after, BATCH],
    )) as { id: string; course_id: string; title: string; content_md: string; language: string }[];
    if (lessons.length === 0) return written;
    for (const lesson of lessons) written += await writeLessonChunks((sql, params) => q.query(sql, params), lesson);
    after = lessons[lessons.length - 1].id;
  }
}

/**
 * Retrieval for the AI tutor (extensions-v2 23.2): each lesson cut into passages with a full-text vector built like
 * the lesson vectors (plain and accent-folded stems of the course language; the passage weighted B, the lesson
 * title D). Derived data of `lessons`, kept by the editor in the transaction of each lesson write.
 */
export class LessonChunks1763758000000 implements MigrationInterface {
  name = 'LessonChunks1763758000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE lesson_chunks (
        id uuid PRIMARY KEY,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        lesson_id uuid NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 1),
        text text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 1600),
        language text NOT NULL CHECK (language IN ('es', 'en')),
        search_vector tsvector NOT NULL
      )`);
    await q.query(`CREATE INDEX lesson_chunks_lesson_idx ON lesson_chunks (lesson_id, position)`);
    await q.query(`CREATE INDEX lesson_chunks_course_idx ON lesson_chunks (course_id)`);
    await q.query(`CREATE INDEX lesson_chunks_search_idx ON lesson_chunks USING gin (search_vector)`);
    await backfillLessonChunks(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE lesson_chunks`);
  }
}
