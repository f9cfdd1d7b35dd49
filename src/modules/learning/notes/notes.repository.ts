import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { orgEq } from '@/core/database/tenancy';

export interface NoteRow {
  lesson_id: string;
  course_id: string;
  content_md: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface NoteListRow extends NoteRow {
  lesson_title: string;
  lesson_position: number;
  course_title: string;
}

const NOTE_COLUMNS = 'n.lesson_id, n.course_id, n.content_md, n.version, n.created_at, n.updated_at';

/**
 * Personal notes (extensions-v2 section 10). The list and the export read lesson and course titles from the
 * catalog tables in the same statement (read-only; a page sorted and filtered with them, see DECISIONS.md).
 */
@Injectable()
export class NotesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(organizationId: string, userId: string, lessonId: string): Promise<NoteRow | null> {
    const rows = await this.dataSource.query<NoteRow[]>(
      `SELECT ${NOTE_COLUMNS} FROM lesson_notes n WHERE ${orgEq(1, 'n')} AND n.user_id = $2 AND n.lesson_id = $3`,
      [organizationId, userId, lessonId],
    );
    return rows[0] ?? null;
  }

  /**
   * Creates or replaces the note; with `baseVersion`, only when the stored version is that one (null: a conflict).
   * One statement, so two devices saving at once cannot both pass the check.
   */
  async save(
    organizationId: string,
    userId: string,
    courseId: string,
    lessonId: string,
    content: string,
    baseVersion: number | null,
    now: Date,
  ): Promise<NoteRow | null> {
    const rows = await this.dataSource.query<NoteRow[]>(
      `INSERT INTO lesson_notes AS n (organization_id, user_id, course_id, lesson_id, content_md, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 1, $7, $7)
       ON CONFLICT (organization_id, user_id, lesson_id) DO UPDATE
         SET content_md = EXCLUDED.content_md, version = n.version + 1, updated_at = EXCLUDED.updated_at
         WHERE $6::int IS NULL OR n.version = $6::int
       RETURNING ${NOTE_COLUMNS}`,
      [organizationId, userId, courseId, lessonId, content, baseVersion, now],
    );
    return rows[0] ?? null;
  }

  async remove(organizationId: string, userId: string, lessonId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM lesson_notes WHERE ${orgEq(1)} AND user_id = $2 AND lesson_id = $3`, [
      organizationId,
      userId,
      lessonId,
    ]);
  }

  async list(
    organizationId: string,
    userId: string,
    filter: { courseId?: string; q?: string },
    page: { limit: number; offset: number },
  ): Promise<{ rows: NoteListRow[]; total: number }> {
    const where = [orgEq(1, 'n'), 'n.user_id = $2'];
    const params: unknown[] = [organizationId, userId];
    if (filter.courseId) where.push(`n.course_id = $${params.push(filter.courseId)}`);
    if (filter.q) {
      const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(`unaccent(lower(n.content_md)) LIKE unaccent(lower($${params.push(pattern)}))`);
    }
    const condition = where.join(' AND ');
    const [rows, total] = await Promise.all([
      this.dataSource.query<NoteListRow[]>(
        `SELECT ${NOTE_COLUMNS}, l.title AS lesson_title, l.position AS lesson_position, c.title AS course_title
         FROM lesson_notes n JOIN lessons_read l ON l.id = n.lesson_id JOIN courses_read c ON c.id = n.course_id
         WHERE ${condition}
         ORDER BY n.updated_at DESC, n.lesson_id
         LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM lesson_notes n WHERE ${condition}`,
        params,
      ),
    ]);
    return { rows, total: total[0].n };
  }

  /** Every note of the person here (or of one course), by course title, then lesson position. */
  async forExport(organizationId: string, userId: string, courseId: string | null): Promise<NoteListRow[]> {
    return this.dataSource.query<NoteListRow[]>(
      `SELECT ${NOTE_COLUMNS}, l.title AS lesson_title, l.position AS lesson_position, c.title AS course_title
       FROM lesson_notes n JOIN lessons_read l ON l.id = n.lesson_id JOIN courses_read c ON c.id = n.course_id
       WHERE ${orgEq(1, 'n')} AND n.user_id = $2 AND ($3::uuid IS NULL OR n.course_id = $3)
       ORDER BY unaccent(lower(c.title)), c.title, c.id, l.position, l.id`,
      [organizationId, userId, courseId],
    );
  }

  /** Bytes of the notes an export would hold (the headings come on top): refused early when already too large. */
  async exportBytes(organizationId: string, userId: string, courseId: string | null): Promise<number> {
    const rows = await this.dataSource.query<{ n: string }[]>(
      `SELECT coalesce(sum(octet_length(content_md)), 0) AS n FROM lesson_notes
       WHERE ${orgEq(1)} AND user_id = $2 AND ($3::uuid IS NULL OR course_id = $3)`,
      [organizationId, userId, courseId],
    );
    return Number(rows[0].n);
  }
}
