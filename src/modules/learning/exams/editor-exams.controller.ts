import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { CreateExamDto, ExamDto, ExamListDto, UpdateExamDto } from './dto/exam.dto';
import { ExamAuthoringService } from './exam-authoring.service';

const RULES =
  'The pool holds 1..500 questions of the lesson-quiz shape and rules: 2..10 options with different texts ' +
  '(`true_false`: exactly 2), exactly one correct for `single` and `true_false`, at least one for `multiple` (422 ' +
  'naming the question, e.g. `questions.2.options`); `questions_per_attempt` is at most the pool size (422). The ' +
  'JSON body is limited to 1 MiB.';

@ApiTags('exams')
@Controller('editor/courses/:course_id/exams')
@PlatformRoles('editor')
export class EditorExamsController {
  constructor(private readonly authoring: ExamAuthoringService) {}

  @Get()
  @ApiOperation({
    summary: "A course's exams",
    description:
      'Every exam of the course (draft or published, at most 20), oldest first, with the pool and its answers.',
  })
  @ApiOkResponse({ type: ExamListDto })
  @ApiErrors(404)
  list(@Param('course_id') courseId: string): Promise<ExamListDto> {
    return this.authoring.list(courseId);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an exam',
    description:
      `A course has at most 20 exams (409 \`exam_limit_reached\`). ${RULES} Defaults: \`max_attempts\` 1, both ` +
      'shuffles on, `show_results` `score`, `required_for_completion` false, proctoring `{fullscreen_required: ' +
      'false, max_focus_losses: 3, flag_paste: true}`, status `draft`. Audited without an organization (`exam.created`).',
  })
  @ApiCreatedResponse({ type: ExamDto })
  @ApiErrors(404, 422, [409, 'exam_limit_reached'])
  create(
    @Param('course_id') courseId: string,
    @Body() dto: CreateExamDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<ExamDto> {
    return this.authoring.create(courseId, dto, credential.userId, req.ip);
  }

  @Get(':exam_id')
  @ApiOperation({ summary: 'An exam', description: 'Every setting and the pool with the correct options.' })
  @ApiOkResponse({ type: ExamDto })
  @ApiErrors(404)
  get(@Param('course_id') courseId: string, @Param('exam_id') examId: string): Promise<ExamDto> {
    return this.authoring.get(courseId, examId);
  }

  @Patch(':exam_id')
  @ApiOperation({
    summary: 'Update an exam',
    description:
      'Only the fields sent change (null is not a value here; a `proctoring` key left out keeps its value); the ' +
      `result follows the rules of creation. \`questions\` replaces the pool with new ids. ${RULES} Sessions already ` +
      'started keep the questions and settings they began with. Audited (`exam.updated`, with the fields sent).',
  })
  @ApiOkResponse({ type: ExamDto })
  @ApiErrors(404, 422)
  update(
    @Param('course_id') courseId: string,
    @Param('exam_id') examId: string,
    @Body() dto: UpdateExamDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<ExamDto> {
    return this.authoring.update(courseId, examId, dto, credential.userId, req.ip);
  }

  @Delete(':exam_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an exam',
    description:
      'Only while nobody has a session of it in any organization, else 409 `exam_in_use` (set it back to `draft` ' +
      'instead). Its windows go with it. Audited (`exam.deleted`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, [409, 'exam_in_use'])
  async remove(
    @Param('course_id') courseId: string,
    @Param('exam_id') examId: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.authoring.remove(courseId, examId, credential.userId, req.ip);
  }
}
