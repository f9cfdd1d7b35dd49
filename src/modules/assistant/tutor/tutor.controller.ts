import { Body, Controller, Delete, Get, HttpCode, Logger, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtension,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  CitationDto,
  ConversationDetailDto,
  ConversationDto,
  ConversationQueryDto,
  CreateConversationDto,
  DeltaEventDto,
  DoneEventDto,
  ErrorEventDto,
  SendMessageDto,
  StartEventDto,
} from './dto/tutor.dto';
import { SseStream } from './sse';
import { MESSAGES_DAY, MESSAGES_MINUTE } from './tutor.limits';
import { TutorService } from './tutor.service';

const MINORS =
  'Minors need their guardian’s consent (403 `guardian_consent_required`) and an organization that allows minors ' +
  '(`minors_allowed`, else 403 `minor_restricted`).';

const STREAM =
  'Answers `200 text/event-stream; charset=utf-8` with `Cache-Control: no-store` and `X-Accel-Buffering: no` once ' +
  'every check has passed (before that, errors are ordinary JSON envelopes). Each event has `id: <n>` (from 1), ' +
  '`event: <name>` and one `data:` line of JSON; a comment line `: ping` comes every 15 s. Events: `start` ' +
  '(StartEventDto), `delta` (DeltaEventDto, a piece of the answer), `citation` (CitationDto, when the marker ' +
  '`[index]` of a passage first appears), then `done` (DoneEventDto) or `error` (ErrorEventDto: `ai_provider_error`, ' +
  '`ai_timeout`, `internal_error`), after which the stream ends.\n\n' +
  "The question is answered from at most 6 passages of the course's lessons (full text in the course language, the " +
  "conversation's lesson weighing 1.5 times; only courses the caller is enrolled in). With no relevant passage the " +
  'tutor declines with a fixed sentence (no provider call, 0 tokens). The remote provider, when configured, gets the ' +
  'passages and the last 6 messages as data it must not take instructions from; if it fails before its first ' +
  'piece, the local extractive tutor answers instead (`done.provider` is `local`). Without a remote provider the ' +
  'local tutor quotes the most relevant sentences of the 3 best passages and says so. A client that disconnects ' +
  'aborts the provider call; what was streamed is stored as `interrupted` and metered. One answer at a time per ' +
  'conversation (409 `tutor_busy`). Quotas (429 `ai_quota_exceeded`, with `Retry-After` and `X-AI-Quota`: ' +
  '`member_daily_tokens`, `organization_monthly_tokens` or `organization_monthly_requests`) are checked before: ' +
  'the message reserves its maximum output plus its prompt estimate (and one request) until its answer is stored, ' +
  'and while other answers of the organization are in progress its reservation must fit within the quota too.';

@ApiTags('tutor')
@Controller('organizations/:org_id/tutor/conversations')
@OrgScoped()
export class TutorController {
  private readonly logger = new Logger('Tutor');

  constructor(private readonly tutor: TutorService) {}

  @Post()
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Start a tutor conversation',
    description:
      'About a course the caller is enrolled in in this organization (else 403 `not_enrolled`; a course the caller ' +
      'cannot reach is 404), optionally one of its lessons (a lesson of another course is 404). 404 ' +
      `\`feature_disabled\` when the organization switched the tutor off. ${MINORS}`,
  })
  @ApiCreatedResponse({ type: ConversationDto })
  @ApiErrors(422, [403, 'not_enrolled', 'minor_restricted', 'guardian_consent_required'], [404, 'feature_disabled'])
  create(
    @CurrentMembership() member: Membership,
    @CurrentCredential() credential: Credential,
    @Body() dto: CreateConversationDto,
  ): Promise<ConversationDto> {
    return this.tutor.create(member, credential, dto);
  }

  @Get()
  @ApiOperation({
    summary: 'My tutor conversations',
    description:
      "The caller's own conversations in this organization, most recently updated first; `course_id` keeps one " +
      'course. Conversations are private: administrators see usage figures only.',
  })
  @ApiPageResponse(ConversationDto)
  @ApiErrors(422)
  list(@CurrentMembership() member: Membership, @Query() query: ConversationQueryDto): Promise<Page<ConversationDto>> {
    return this.tutor.list(member, query);
  }

  @Get(':conversation_id')
  @ApiOperation({
    summary: 'A tutor conversation with its messages',
    description: "Its author only (anyone else's is 404). Messages oldest first, answers with their citations.",
  })
  @ApiOkResponse({ type: ConversationDetailDto })
  @ApiErrors(404)
  get(
    @CurrentMembership() member: Membership,
    @Param('conversation_id') conversationId: string,
  ): Promise<ConversationDetailDto> {
    return this.tutor.get(member, conversationId);
  }

  @Delete(':conversation_id')
  @HttpCode(204)
  @MinorAccess('with_consent')
  @ApiOperation({ summary: 'Delete a tutor conversation', description: 'Its author only; its messages go with it.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, [403, 'guardian_consent_required'])
  async remove(
    @CurrentMembership() member: Membership,
    @Param('conversation_id') conversationId: string,
  ): Promise<void> {
    await this.tutor.remove(member, conversationId);
  }

  @Post(':conversation_id/messages')
  @MinorAccess('with_consent')
  @RateLimit(MESSAGES_MINUTE, MESSAGES_DAY)
  @ApiExtraModels(StartEventDto, DeltaEventDto, CitationDto, DoneEventDto, ErrorEventDto)
  @ApiExtension('x-event-data', {
    start: { $ref: getSchemaPath(StartEventDto) },
    delta: { $ref: getSchemaPath(DeltaEventDto) },
    citation: { $ref: getSchemaPath(CitationDto) },
    done: { $ref: getSchemaPath(DoneEventDto) },
    error: { $ref: getSchemaPath(ErrorEventDto) },
  })
  @ApiOperation({ summary: 'Ask the tutor (answer streamed as server-sent events)', description: STREAM })
  @ApiOkResponse({
    description: 'The answer as server-sent events',
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description:
            'Events `start`, `delta`, `citation`, `done`, `error`; the `data` of each is one of the schemas ' +
            'StartEventDto, DeltaEventDto, CitationDto, DoneEventDto, ErrorEventDto (see `x-event-data`)',
        },
      },
    },
  })
  @ApiErrors(
    404,
    422,
    [403, 'not_enrolled', 'minor_restricted', 'guardian_consent_required'],
    [404, 'feature_disabled'],
    [409, 'tutor_busy'],
    [429, 'ai_quota_exceeded', 'too_many_requests'],
  )
  async message(
    @CurrentMembership() member: Membership,
    @CurrentCredential() credential: Credential,
    @Param('conversation_id') conversationId: string,
    @Body() dto: SendMessageDto,
    @Res() res: Response,
  ): Promise<void> {
    const answer = await this.tutor.prepareAnswer(member, credential, conversationId, dto.content);
    const abort = new AbortController();
    // The learner left: the provider call is aborted and the answer stored as interrupted.
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const stream = new SseStream(res);
    try {
      for await (const event of answer.events(abort.signal)) await stream.send(event.event, event.data);
    } catch (err) {
      this.logger.error({ err }, 'Tutor answer failed mid-stream');
      await stream.send('error', { code: 'internal_error', message: 'Something went wrong; the answer stops here.' });
    } finally {
      stream.end();
    }
  }
}
