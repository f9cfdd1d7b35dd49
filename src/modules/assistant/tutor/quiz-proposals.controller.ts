import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { EditorLessonDto } from '@/modules/learning/editor';
import {
  AcceptQuizProposalDto,
  CreateQuizProposalDto,
  QuizProposalDto,
  QuizProposalListDto,
} from './dto/quiz-proposal.dto';
import { QuizProposalsService } from './quiz-proposals.service';
import { PROPOSALS_HOUR } from './tutor.limits';

@ApiTags('tutor')
@Controller('editor/courses/:course_id/lessons/:lesson_id/quiz-proposals')
@PlatformRoles('editor')
export class QuizProposalsController {
  constructor(private readonly proposals: QuizProposalsService) {}

  @Post()
  @HttpCode(202)
  @RateLimit(PROPOSALS_HOUR)
  @ApiOperation({
    summary: 'Ask for AI quiz questions drawn from a lesson',
    description:
      'Queued (202); a job asks the provider for `count` questions of the allowed `kinds` in the course language, ' +
      'each resting on a passage of the lesson. Questions that break the quiz rules or name no passage of the lesson ' +
      'are dropped; none left fails the proposal with `error_code: ai_invalid_output`. Without a remote provider the ' +
      'local generator writes `single` (a key term blanked) and `true_false` questions, deterministically. A lesson ' +
      'without text is 409 `lesson_empty`. Metered as platform work (`quiz_proposal`).',
  })
  @ApiAcceptedResponse({ type: QuizProposalDto, description: 'Queued' })
  @ApiErrors(404, 422, [409, 'lesson_empty'])
  create(
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
    @Body() dto: CreateQuizProposalDto,
    @CurrentCredential() credential: Credential,
  ): Promise<QuizProposalDto> {
    return this.proposals.create(courseId, lessonId, dto, credential.userId);
  }

  @Get()
  @ApiOperation({ summary: "A lesson's quiz proposals", description: 'The 20 most recent, newest first.' })
  @ApiOkResponse({ type: QuizProposalListDto })
  @ApiErrors(404)
  list(@Param('course_id') courseId: string, @Param('lesson_id') lessonId: string): Promise<QuizProposalListDto> {
    return this.proposals.list(courseId, lessonId);
  }

  @Get(':proposal_id')
  @ApiOperation({ summary: 'A quiz proposal' })
  @ApiOkResponse({ type: QuizProposalDto })
  @ApiErrors(404)
  get(
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
    @Param('proposal_id') proposalId: string,
  ): Promise<QuizProposalDto> {
    return this.proposals.get(courseId, lessonId, proposalId);
  }

  @Post(':proposal_id/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: "Accept proposed questions into the lesson's quiz",
    description:
      'Appends the chosen questions after the quiz’s current ones (which keep their ids), creating the quiz with ' +
      '`passing_score` (default 70) when the lesson has none, under the rules of a lesson PATCH (422 when the quiz ' +
      'would break them, e.g. above 50 questions, or for an index the proposal does not have). 409 ' +
      '`proposal_not_ready` before it is ready, `proposal_question_accepted` for a question accepted before.',
  })
  @ApiOkResponse({ type: EditorLessonDto, description: 'The lesson with its quiz' })
  @ApiErrors(404, 422, [409, 'proposal_not_ready', 'proposal_question_accepted'])
  accept(
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
    @Param('proposal_id') proposalId: string,
    @Body() dto: AcceptQuizProposalDto,
  ): Promise<EditorLessonDto> {
    return this.proposals.accept(courseId, lessonId, proposalId, dto);
  }

  @Delete(':proposal_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a quiz proposal', description: 'Questions accepted before stay in the quiz.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
    @Param('proposal_id') proposalId: string,
  ): Promise<void> {
    await this.proposals.remove(courseId, lessonId, proposalId);
  }
}
