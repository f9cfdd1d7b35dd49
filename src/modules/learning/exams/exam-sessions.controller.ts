import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import { type Credential, hasPlatformRole } from '@/core/auth/credential';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  ExamSessionDto,
  NoBodyDto,
  ProctoringEventDto,
  ProctoringEventsAcceptedDto,
  ProctoringEventsInputDto,
  ReviewInputDto,
  SavedAnswerDto,
  SaveAnswerDto,
  SessionListQueryDto,
} from './dto/session.dto';
import { ExamSessionsService } from './exam-sessions.service';
import { ANSWER_ACCOUNT, EVENTS_ACCOUNT, START_ACCOUNT } from './exams.limits';

const CLOCK =
  'Every time is the server’s: `server_now` and `remaining_ms` come with each session so the client can correct ' +
  'its own clock; a time sent by the client is refused (422).';
const LEARNER_ONLY = 'Only the session’s learner: staff who oversee them get 403, anyone else 404.';
const STAFF_VIEW =
  'The staff view carries `result` and `corrections` once the session is closed (null while in progress); the ' +
  'answer keys of the platform’s exams (`correct_option_ids`, `explanation`) only for platform admins.';
const CLOSE_ON_TOUCH =
  'A session past `deadline_at + 2000 ms` is first closed and graded with its saved answers (`submitted_by: deadline`).';

/** Only a platform admin's browser session sees the platform's answer keys (a bearer token carries no platform role). */
const answerKeys = (credential: Credential): boolean => hasPlatformRole(credential, 'platform_admin');

@ApiTags('exams')
@Controller('organizations/:org_id/exams/:exam_id/sessions')
@OrgScoped()
export class ExamSessionsController {
  constructor(private readonly sessions: ExamSessionsService) {}

  @Post()
  @MinorAccess('with_consent')
  @RateLimit(START_ACCOUNT)
  @ApiOperation({
    summary: 'Start a session',
    description:
      'Needs an enrollment in the course here (403 `not_enrolled`), a window applying to the caller open now (409 ' +
      '`exam_not_open`), no session of this exam in progress (409 `exam_session_active`) and attempts left (409 ' +
      '`exam_attempts_exhausted`; a session voided with `allow_retake` does not count). Draws ' +
      '`questions_per_attempt` questions uniformly at random (shuffled as configured) and keeps them for the session; ' +
      '`deadline_at = min(start + duration, the latest closes_at of the open windows)`. The session is closed at ' +
      `its deadline even if the learner never comes back. ${CLOCK} A draft or unreachable exam is 404.`,
  })
  @ApiCreatedResponse({ type: ExamSessionDto })
  @ApiErrors(404, 422, [403, 'not_enrolled'], [409, 'exam_not_open', 'exam_session_active', 'exam_attempts_exhausted'])
  start(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Body() _body: NoBodyDto,
    @Req() req: Request,
  ): Promise<ExamSessionDto> {
    return this.sessions.start(member, examId, req.ip);
  }

  @Get()
  @ApiOperation({
    summary: 'Sessions of an exam',
    description:
      'Most recent first. Members see their own (learner view); owners and admins everyone’s, teachers their cohorts’ ' +
      'students’ (staff view). `user_id` and `cohort_id` outside the caller’s scope are 403; a cohort of another ' +
      `organization is 404. ${STAFF_VIEW} ${CLOSE_ON_TOUCH}`,
  })
  @ApiPageResponse(ExamSessionDto)
  @ApiErrors(403, 404, 422)
  list(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Query() query: SessionListQueryDto,
    @CurrentCredential() credential: Credential,
  ): Promise<Page<ExamSessionDto>> {
    return this.sessions.list(member, examId, query, answerKeys(credential));
  }

  @Get(':session_id')
  @ApiOperation({
    summary: 'A session',
    description: `Its learner (learner view) or staff who oversee them (staff view); anyone else 404. ${STAFF_VIEW} ${CLOSE_ON_TOUCH} ${CLOCK}`,
  })
  @ApiOkResponse({ type: ExamSessionDto })
  @ApiErrors(404)
  get(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('session_id') sessionId: string,
    @Req() req: Request,
    @CurrentCredential() credential: Credential,
  ): Promise<ExamSessionDto> {
    return this.sessions.read(member, examId, sessionId, req.ip, answerKeys(credential));
  }

  @Put(':session_id/answers/:question_id')
  @MinorAccess('with_consent')
  @RateLimit(ANSWER_ACCOUNT)
  @ApiOperation({
    summary: 'Autosave one answer',
    description:
      'Accepted until `deadline_at + 2000 ms` by the server’s clock (network grace), then 409 `exam_session_closed` ' +
      '(the request closes the session). A save whose `seq` is not above the stored one for this question changes ' +
      'nothing and answers the stored answer, so out-of-order retries never overwrite a newer answer. A question the ' +
      `session did not draw is 404; an option of another question 422. ${LEARNER_ONLY}`,
  })
  @ApiOkResponse({ type: SavedAnswerDto })
  @ApiErrors(403, 404, 422, [409, 'exam_session_closed'])
  saveAnswer(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('session_id') sessionId: string,
    @Param('question_id') questionId: string,
    @Body() dto: SaveAnswerDto,
    @Req() req: Request,
  ): Promise<SavedAnswerDto> {
    return this.sessions.saveAnswer(member, examId, sessionId, questionId, dto, req.ip);
  }

  @Post(':session_id/events')
  @HttpCode(202)
  @MinorAccess('with_consent')
  @RateLimit(EVENTS_ACCOUNT)
  @ApiOperation({
    summary: 'Report proctoring events',
    description:
      'What the client observed, 1..50 at a time. `focus_lost` and `visibility_hidden` count as violations, ' +
      '`fullscreen_exit` too when fullscreen is required; violations above `max_focus_losses` flag the session ' +
      '`focus_limit_exceeded`, a paste flags it `paste_detected` when configured; the other types are stored only. ' +
      'A flagged session awaits review; the server never closes a session for events. Each event keeps the client’s ' +
      '`occurred_at` and the server’s `received_at` (the one that counts). Until `deadline_at + 2000 ms`, then 409 ' +
      `\`exam_session_closed\`. ${LEARNER_ONLY}`,
  })
  @ApiAcceptedResponse({ type: ProctoringEventsAcceptedDto })
  @ApiErrors(403, 404, 422, [409, 'exam_session_closed'])
  recordEvents(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('session_id') sessionId: string,
    @Body() dto: ProctoringEventsInputDto,
    @Req() req: Request,
  ): Promise<ProctoringEventsAcceptedDto> {
    return this.sessions.recordEvents(member, examId, sessionId, dto, req.ip);
  }

  @Post(':session_id/submit')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Submit and grade',
    description:
      'Closes the session and grades it once with the saved answers (a question is right when the chosen options ' +
      'are exactly the correct ones; unanswered is wrong; `score` is the integer percent, half up; passed at ' +
      '`score >= passing_score`). Idempotent: a closed session answers 200 as it is. The result shown follows the ' +
      `exam’s \`show_results\`. ${LEARNER_ONLY}`,
  })
  @ApiOkResponse({ type: ExamSessionDto })
  @ApiErrors(403, 404, 422)
  submit(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('session_id') sessionId: string,
    @Body() _body: NoBodyDto,
    @Req() req: Request,
  ): Promise<ExamSessionDto> {
    return this.sessions.submit(member, examId, sessionId, req.ip);
  }

  @Post(':session_id/review')
  @HttpCode(200)
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Review a session',
    description:
      '`accept`: the score stands; `void`: score and pass are cancelled, and with `allow_retake` the attempt is given ' +
      'back (`allow_retake` with `accept` is 422). Owners, admins, or a teacher of a cohort the learner is a student ' +
      'in; never one’s own session (403). A session in progress is 409 `exam_session_in_progress`; one already ' +
      'decided 409 `exam_session_already_reviewed`. Audited (`exam_session.reviewed`). ' +
      STAFF_VIEW,
  })
  @ApiOkResponse({ type: ExamSessionDto })
  @ApiErrors(403, 404, 422, [409, 'exam_session_in_progress', 'exam_session_already_reviewed'])
  review(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('session_id') sessionId: string,
    @Body() dto: ReviewInputDto,
    @Req() req: Request,
    @CurrentCredential() credential: Credential,
  ): Promise<ExamSessionDto> {
    return this.sessions.review(member, examId, sessionId, dto, req.ip, answerKeys(credential));
  }

  @Get(':session_id/events')
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Proctoring events of a session',
    description:
      'By `received_at` (the server’s time), then their order in the batch. Owners, admins, or a teacher of a cohort ' +
      'the learner is a student in (403 otherwise).',
  })
  @ApiPageResponse(ProctoringEventDto)
  @ApiErrors(403, 404, 422)
  events(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('session_id') sessionId: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<ProctoringEventDto>> {
    return this.sessions.eventPage(member, examId, sessionId, query);
  }
}
