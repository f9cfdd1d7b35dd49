import { Inject, Injectable } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { isForeignKeyViolation } from '@/core/database/constraint-violation';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import { CatalogService } from '@/modules/learning/courses';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { ProgressService } from '@/modules/learning/progress';
import type { NoteDto, NoteExportQueryDto, NoteListItemDto, NoteListQueryDto, SaveNoteDto } from './dto/notes.dto';
import { fileSlug, oneLine, plainText } from './note-text';
import { type NoteRow, NotesRepository } from './notes.repository';

/** The largest export in bytes (extensions-v2 10: 5 MiB; injectable so a test can reach it with small notes). */
export const NOTES_EXPORT_MAX_BYTES = Symbol('NOTES_EXPORT_MAX_BYTES');
export const EXPORT_MAX_BYTES = 5 * 1024 * 1024;

export interface NotesExport {
  filename: string;
  body: string;
}

/**
 * One Markdown note per person, organization and lesson (extensions-v2 section 10), private to its author, for
 * lessons of courses the author is enrolled in here. The export writes them as one Markdown file.
 */
@Injectable()
export class NotesService {
  constructor(
    private readonly notes: NotesRepository,
    private readonly catalog: CatalogService,
    private readonly progress: ProgressService,
    private readonly organizations: OrganizationsService,
    private readonly clock: Clock,
    @Inject(NOTES_EXPORT_MAX_BYTES) private readonly maxBytes: number,
  ) {}

  /** The lesson as the lesson pages reach it: course reachable here (404), lesson of it (404), enrolled (403). */
  private async lesson(
    member: Membership,
    courseId: string,
    lessonId: string,
  ): Promise<{ courseId: string; lessonId: string }> {
    const reach = await this.catalog.reachable(member.organizationId, courseId, (id) =>
      this.progress.enrollment(member.organizationId, member.userId, id),
    );
    if (!reach || !isUuid(lessonId)) throw ApiError.notFound();
    const lesson = await this.catalog.lesson(reach.course.id, lessonId.toLowerCase());
    if (!lesson) throw ApiError.notFound();
    if (!reach.enrollment) throw ApiError.forbidden('Enroll in the course first.', 'not_enrolled');
    return { courseId: reach.course.id, lessonId: lesson.id };
  }

  async get(member: Membership, courseId: string, lessonId: string): Promise<NoteDto> {
    const at = await this.lesson(member, courseId, lessonId);
    const note = await this.notes.find(member.organizationId, member.userId, at.lessonId);
    if (!note) throw ApiError.notFound('You have no note on this lesson.');
    return toDto(note);
  }

  async save(member: Membership, courseId: string, lessonId: string, dto: SaveNoteDto): Promise<NoteDto> {
    const at = await this.lesson(member, courseId, lessonId);
    const saved = await this.notes
      .save(
        member.organizationId,
        member.userId,
        at.courseId,
        at.lessonId,
        dto.content_md,
        dto.base_version ?? null,
        this.clock.now(),
      )
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    if (!saved) {
      throw ApiError.conflict('note_version_conflict', 'The note was saved from another device in between: reload it.');
    }
    return toDto(saved);
  }

  async remove(member: Membership, courseId: string, lessonId: string): Promise<void> {
    const at = await this.lesson(member, courseId, lessonId);
    await this.notes.remove(member.organizationId, member.userId, at.lessonId);
  }

  async list(member: Membership, query: NoteListQueryDto): Promise<Page<NoteListItemDto>> {
    const { rows, total } = await this.notes.list(
      member.organizationId,
      member.userId,
      { courseId: query.course_id?.toLowerCase(), q: query.q },
      query,
    );
    return toPage(
      rows.map((r) => ({
        lesson_id: r.lesson_id,
        lesson_title: r.lesson_title,
        lesson_position: r.lesson_position,
        course_id: r.course_id,
        course_title: r.course_title,
        excerpt: plainText(r.content_md, 200),
        version: r.version,
        updated_at: new Date(r.updated_at).toISOString(),
      })),
      total,
      query,
    );
  }

  /**
   * The notes as one Markdown file: per course (by title) `# <course title>`, then per lesson with a note (by
   * position) `## <position>. <lesson title>`, a blank line and the note. A course not reachable here is 404; more
   * than 5 MiB is 413 `export_too_large`.
   */
  async export(member: Membership, query: NoteExportQueryDto): Promise<NotesExport> {
    let course: { id: string; slug: string; title: string } | null = null;
    if (query.course_id) {
      const reach = await this.catalog.reachable(member.organizationId, query.course_id, (id) =>
        this.progress.enrollment(member.organizationId, member.userId, id),
      );
      if (!reach) throw ApiError.notFound();
      course = reach.course;
    }
    const tooLarge = (): ApiError =>
      ApiError.tooLarge('export_too_large', `The export would be larger than ${this.maxBytes} bytes.`);
    if ((await this.notes.exportBytes(member.organizationId, member.userId, course?.id ?? null)) > this.maxBytes) {
      throw tooLarge();
    }
    const rows = await this.notes.forExport(member.organizationId, member.userId, course?.id ?? null);
    const parts: string[] = [];
    let current: string | null = null;
    if (course && rows.length === 0) parts.push(`# ${oneLine(course.title)}\n`);
    for (const row of rows) {
      if (row.course_id !== current) {
        current = row.course_id;
        parts.push(`# ${oneLine(row.course_title)}\n`);
      }
      parts.push(`## ${row.lesson_position}. ${oneLine(row.lesson_title)}\n\n${row.content_md.replace(/\s+$/, '')}\n`);
    }
    const body = parts.join('\n');
    if (Buffer.byteLength(body, 'utf8') > this.maxBytes) throw tooLarge();
    const slug = course
      ? course.slug
      : ((await this.organizations.findById(member.organizationId))?.slug ?? 'organization');
    return { filename: `notes-${fileSlug(slug)}.md`, body };
  }
}

function toDto(note: NoteRow): NoteDto {
  return {
    lesson_id: note.lesson_id,
    course_id: note.course_id,
    content_md: note.content_md,
    version: note.version,
    created_at: new Date(note.created_at).toISOString(),
    updated_at: new Date(note.updated_at).toISOString(),
  };
}
