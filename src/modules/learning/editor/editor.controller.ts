import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import {
  CreateCourseDto,
  CreateLessonDto,
  EditorCourseDto,
  EditorCourseQueryDto,
  EditorCourseSummaryDto,
  EditorLessonDto,
  UpdateCourseDto,
  UpdateLessonDto,
} from './dto/editor.dto';
import { EditorService } from './editor.service';

const QUIZ_RULES =
  'A quiz has `passing_score` 0..100 and 1..50 questions; each question 2..10 options with different texts ' +
  '(`true_false`: exactly 2), exactly one correct for `single` and `true_false`, at least one for `multiple` ' +
  '(422 naming the question, e.g. `quiz.questions.2.options`).';

@ApiTags('editor')
@Controller('editor/courses')
@PlatformRoles('editor')
export class EditorController {
  constructor(private readonly editor: EditorService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a course',
    description:
      'A draft of the shared catalog. The slug is derived from the title when absent (accents dropped, `-2`, `-3`... ' +
      'when taken); a given slug that is taken is 409 `slug_taken`. Tags (up to 20, 1..40 characters) are stored ' +
      'lower-cased without repeats. `organization_ids` must exist (else 422) and must name at least one organization ' +
      'for a `restricted` course. Audited without an organization (`course.created`).',
  })
  @ApiCreatedResponse({ type: EditorCourseDto })
  @ApiErrors(422, [409, 'slug_taken'])
  create(
    @Body() dto: CreateCourseDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<EditorCourseDto> {
    return this.editor.create(dto, credential.userId, req.ip);
  }

  @Get()
  @ApiOperation({
    summary: 'Every course of the catalog',
    description:
      'Drafts, published and unpublished courses, most recently created first. `status` keeps one status; `q` is full ' +
      'text over title, summary and description (Spanish and English stemming, accent-insensitive) or an exact slug.',
  })
  @ApiPageResponse(EditorCourseSummaryDto)
  @ApiErrors(422)
  list(@Query() query: EditorCourseQueryDto): Promise<Page<EditorCourseSummaryDto>> {
    return this.editor.list(query);
  }

  @Get(':course_id')
  @ApiOperation({
    summary: 'A course with its lessons',
    description: 'Lessons in order, each with its quiz including the correct options and explanations.',
  })
  @ApiOkResponse({ type: EditorCourseDto })
  @ApiErrors(404)
  get(@Param('course_id') courseId: string): Promise<EditorCourseDto> {
    return this.editor.get(courseId);
  }

  @Patch(':course_id')
  @ApiOperation({
    summary: 'Update a course',
    description:
      'Only the fields sent change (null is not a value here); the resulting course follows the rules of creation. ' +
      '`organization_ids` replaces the list. A new language also becomes the language of the lessons (search ' +
      'stemming). Audited (`course.updated`, with the names of the fields sent).',
  })
  @ApiOkResponse({ type: EditorCourseDto })
  @ApiErrors(404, 422, [409, 'slug_taken'])
  update(
    @Param('course_id') courseId: string,
    @Body() dto: UpdateCourseDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<EditorCourseDto> {
    return this.editor.update(courseId, dto, credential.userId, req.ip);
  }

  @Delete(':course_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a course',
    description:
      'Only when nobody in any organization is enrolled and no certificate or learning path refers to it, else 409 ' +
      '`course_in_use` (unpublish it instead). Its lessons, quizzes and ratings go with it. Audited (`course.deleted`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, [409, 'course_in_use'])
  async remove(
    @Param('course_id') courseId: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.editor.remove(courseId, credential.userId, req.ip);
  }

  @Post(':course_id/publish')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Publish a course',
    description:
      'The course enters the catalog of every organization (public) or of its organizations (restricted), newest ' +
      'first. Needs at least one lesson (409 `course_empty`). Idempotent. Audited without an organization ' +
      '(`course.published`).',
  })
  @ApiOkResponse({ type: EditorCourseDto })
  @ApiErrors(404, [409, 'course_empty'])
  publish(
    @Param('course_id') courseId: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<EditorCourseDto> {
    return this.editor.publish(courseId, credential.userId, req.ip);
  }

  @Post(':course_id/unpublish')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Unpublish a course',
    description:
      'The course leaves every catalog and search; people already enrolled keep learning it and can still earn its ' +
      'certificate. Idempotent (a draft stays a draft). Audited without an organization (`course.unpublished`).',
  })
  @ApiOkResponse({ type: EditorCourseDto })
  @ApiErrors(404)
  unpublish(
    @Param('course_id') courseId: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<EditorCourseDto> {
    return this.editor.unpublish(courseId, credential.userId, req.ip);
  }

  @Post(':course_id/lessons')
  @ApiOperation({
    summary: 'Add a lesson',
    description:
      'Appended, or inserted at `position` (1..n+1; the lesson there and the later ones move down; else 422). ' +
      QUIZ_RULES,
  })
  @ApiCreatedResponse({ type: EditorLessonDto })
  @ApiErrors(404, 422)
  createLesson(@Param('course_id') courseId: string, @Body() dto: CreateLessonDto): Promise<EditorLessonDto> {
    return this.editor.createLesson(courseId, dto);
  }

  @Patch(':course_id/lessons/:lesson_id')
  @ApiOperation({
    summary: 'Update or move a lesson',
    description:
      'Only the fields sent change. `position` (1..n) moves the lesson; the ones in between shift by one. `quiz` ' +
      `replaces the quiz (passes already recorded still count), \`quiz: null\` removes it. ${QUIZ_RULES}`,
  })
  @ApiOkResponse({ type: EditorLessonDto })
  @ApiErrors(404, 422)
  updateLesson(
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
    @Body() dto: UpdateLessonDto,
  ): Promise<EditorLessonDto> {
    return this.editor.updateLesson(courseId, lessonId, dto);
  }

  @Delete(':course_id/lessons/:lesson_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a lesson',
    description:
      'The later lessons move up; completions of the lesson go with it (completed courses stay completed). The last ' +
      'lesson of a published course cannot be deleted (409 `course_empty`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, [409, 'course_empty'])
  async deleteLesson(@Param('course_id') courseId: string, @Param('lesson_id') lessonId: string): Promise<void> {
    await this.editor.deleteLesson(courseId, lessonId);
  }
}
