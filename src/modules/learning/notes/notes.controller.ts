import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { NoteDto, NoteExportQueryDto, NoteListItemDto, NoteListQueryDto, SaveNoteDto } from './dto/notes.dto';
import { NotesService } from './notes.service';

const ACCESS =
  'The caller’s own note: private to its author. The course must be reachable here and the lesson one of its ' +
  'lessons (404); the caller must be enrolled in the course here (403 `not_enrolled`).';

@ApiTags('notes')
@Controller('organizations/:org_id')
@OrgScoped()
export class NotesController {
  constructor(private readonly notes: NotesService) {}

  @Get('notes')
  @ApiOperation({
    summary: 'The caller’s notes',
    description:
      'Most recently updated first. `course_id` keeps one course; `q` keeps notes whose text contains it (case- and ' +
      'accent-insensitive). `excerpt`: the first 200 characters as plain text.',
  })
  @ApiPageResponse(NoteListItemDto)
  @ApiErrors(422)
  list(@CurrentMembership() member: Membership, @Query() query: NoteListQueryDto): Promise<Page<NoteListItemDto>> {
    return this.notes.list(member, query);
  }

  @Get('notes/export')
  @ApiOperation({
    summary: 'Download the caller’s notes as Markdown',
    description:
      'Per course (by title) `# <course title>`, then per lesson with a note (by position) `## <position>. <lesson ' +
      'title>`, a blank line, the note. `Content-Disposition: attachment; filename="notes-<course slug>.md"` (without ' +
      '`course_id`: every course with notes, `notes-<organization slug>.md`). A course not reachable here is 404; ' +
      'above 5 MiB 413 `export_too_large`.',
  })
  @ApiOkResponse({
    description: 'The Markdown file (`text/markdown; charset=utf-8`)',
    content: { 'text/markdown': { schema: { type: 'string' } } },
  })
  @ApiErrors(404, 422, [413, 'export_too_large'])
  async export(
    @CurrentMembership() member: Membership,
    @Query() query: NoteExportQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.notes.export(member, query);
    res.status(200);
    res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.send(file.body);
  }

  @Get('courses/:course_id/lessons/:lesson_id/note')
  @ApiOperation({ summary: 'The caller’s note on a lesson', description: `404 when there is none. ${ACCESS}` })
  @ApiOkResponse({ type: NoteDto })
  @ApiErrors(404, [403, 'not_enrolled'])
  get(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
  ): Promise<NoteDto> {
    return this.notes.get(member, courseId, lessonId);
  }

  @Put('courses/:course_id/lessons/:lesson_id/note')
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Save the caller’s note on a lesson',
    description:
      'Creates or replaces it (Markdown, 1..20 000 characters); `version` starts at 1 and grows with every save. ' +
      'With `base_version`, a different stored version (another device saved first) is 409 `note_version_conflict` ' +
      `and nothing changes. ${ACCESS}`,
  })
  @ApiOkResponse({ type: NoteDto })
  @ApiErrors(404, 422, [403, 'not_enrolled'], [409, 'note_version_conflict'])
  save(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
    @Body() dto: SaveNoteDto,
  ): Promise<NoteDto> {
    return this.notes.save(member, courseId, lessonId, dto);
  }

  @Delete('courses/:course_id/lessons/:lesson_id/note')
  @HttpCode(204)
  @MinorAccess('with_consent')
  @ApiOperation({ summary: 'Delete the caller’s note on a lesson', description: `Idempotent. ${ACCESS}` })
  @ApiNoContentResponse({ description: 'Deleted (or there was none)' })
  @ApiErrors(404, [403, 'not_enrolled'])
  async remove(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
  ): Promise<void> {
    await this.notes.remove(member, courseId, lessonId);
  }
}
