import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { Credential } from '@/core/auth/credential';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { AiUsageService } from '@/modules/assistant/ai-usage';
import { CatalogService, type ReachableCourse, LessonPassagesService } from '@/modules/learning/courses';
import { isUuid } from '@/core/http/uuid';
import { ProgressService } from '@/modules/learning/progress';
import { UsersService } from '@/modules/identity/users';
import type { NumberedPassage } from './citations';
import type {
  ConversationDetailDto,
  ConversationDto,
  ConversationQueryDto,
  CreateConversationDto,
  TutorMessageDto,
} from './dto/tutor.dto';
import { AI_PROVIDER, type AiProvider, LOCAL_AI_PROVIDER } from './providers/ai-provider';
import { TutorAnswer } from './tutor-answer';
import { type ConversationRow, type MessageRow, TutorRepository } from './tutor.repository';

/** Passages an answer rests on (extensions-v2 23.2), and messages of the conversation it sees (23.3). */
const PASSAGES = 6;
const HISTORY = 6;
/** How long an answer may hold its conversation beyond the provider's own limit before another may start. */
const ANSWER_LEASE_MARGIN_MS = 60_000;

const notEnrolled = (): ApiError => ApiError.forbidden('Enroll in the course first.', 'not_enrolled');

function idOr404(id: string): string {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
}

/**
 * The AI tutor over a course's content (extensions-v2 23): conversations private to their author, and answers that
 * quote or rest on the passages of the course the learner may read, streamed by the controller.
 */
@Injectable()
export class TutorService {
  constructor(
    private readonly tutor: TutorRepository,
    private readonly catalog: CatalogService,
    private readonly passages: LessonPassagesService,
    private readonly usage: AiUsageService,
    private readonly users: UsersService,
    private readonly progress: ProgressService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    @Inject(AI_PROVIDER) private readonly provider: AiProvider,
    @Inject(LOCAL_AI_PROVIDER) private readonly local: AiProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A conversation about a course the caller is enrolled in (and optionally one of its lessons). Checked in order:
   * the organization's switch (404 `feature_disabled`), minors (403 `minor_restricted` unless allowed), the course and
   * lesson (404), the enrollment (403 `not_enrolled`).
   */
  async create(member: Membership, credential: Credential, dto: CreateConversationDto): Promise<ConversationDto> {
    this.ensureTutor(await this.usage.tutorSwitches(member.organizationId), credential);
    const { course, enrollment } = await this.reach(member, dto.course_id);
    if (dto.lesson_id && !(await this.catalog.lesson(course.id, dto.lesson_id))) throw ApiError.notFound();
    if (!enrollment) throw notEnrolled();
    const row = await this.tutor.insertConversation({
      organizationId: member.organizationId,
      userId: member.userId,
      courseId: course.id,
      lessonId: dto.lesson_id ?? null,
      now: this.clock.now(),
    });
    return toDto(row);
  }

  async list(member: Membership, query: ConversationQueryDto): Promise<Page<ConversationDto>> {
    const { rows, total } = await this.tutor.list(member.organizationId, member.userId, query.course_id, query);
    return toPage(rows.map(toDto), total, query);
  }

  async get(member: Membership, conversationId: string): Promise<ConversationDetailDto> {
    const conversation = await this.own(member, conversationId);
    const messages = await this.tutor.messages(member.organizationId, conversation.id);
    return { ...toDto(conversation), messages: messages.map(toMessageDto) };
  }

  async remove(member: Membership, conversationId: string): Promise<void> {
    if (!(await this.tutor.delete(member.organizationId, member.userId, idOr404(conversationId)))) {
      throw ApiError.notFound();
    }
  }

  /**
   * Every check of a new message, before anything is streamed (so each failure is an ordinary JSON answer): the
   * conversation is the caller's (404), the tutor is on (404 `feature_disabled`), minors are allowed (403
   * `minor_restricted`), the course is still reachable (404) and the caller enrolled (403 `not_enrolled`), the quotas
   * (429 `ai_quota_exceeded`), no other answer in progress (409 `tutor_busy`). Then the passages are retrieved and
   * the question stored; the answer itself runs as the stream is read.
   */
  async prepareAnswer(
    member: Membership,
    credential: Credential,
    conversationId: string,
    question: string,
  ): Promise<TutorAnswer> {
    const conversation = await this.own(member, conversationId);
    // The checks and the retrieval read independent rows: they run together, and the checks are judged in the
    // order of the spec (retrieval finds nothing for someone who may not read the course).
    const [switches, reachable, quota, user, found, history] = await Promise.allSettled([
      this.usage.tutorSwitches(member.organizationId),
      this.reachable(member, conversation.course_id),
      this.usage.checkQuota(member.organizationId, member.userId),
      this.users.getById(member.userId),
      this.passages.forLearner(member, {
        courseId: conversation.course_id,
        lessonId: conversation.lesson_id,
        question,
        limit: PASSAGES,
      }),
      this.tutor.messages(member.organizationId, conversation.id, HISTORY),
    ]);
    this.ensureTutor(settled(switches), credential);
    const reached = settled(reachable);
    if (!reached) throw ApiError.notFound();
    if (!reached.enrollment) throw notEnrolled();
    const limits = settled(quota);
    const { course } = reached;
    // The answering slot and the question in one transaction: one commit before the stream starts.
    const userMessageId = randomUUID();
    const userMessageAt = this.clock.now();
    const until = new Date(userMessageAt.getTime() + this.config.ai.timeoutMs + ANSWER_LEASE_MARGIN_MS);
    const passageRows = settled(found);
    const historyRows = settled(history);
    // extensions-v3 6.8: the answer's maximum output plus its prompt estimate is reserved against the quotas with
    // the answering slot, under the organization's quota lock; storing the answer returns it (releaseAnswering).
    const reservedTokens = this.config.ai.maxOutputTokens + promptEstimate(question, passageRows, historyRows);
    const claimed = await this.transactions.run(async (tx) => {
      await this.usage.lockQuotas(member.organizationId, tx);
      const inFlight = await this.tutor.inFlight(member.organizationId, member.userId, userMessageAt, tx);
      await this.usage.checkReservation(
        member.organizationId,
        member.userId,
        limits,
        { tokens: reservedTokens, inFlight },
        tx,
      );
      if (
        !(await this.tutor.claimAnswering(
          member.organizationId,
          member.userId,
          conversation.id,
          userMessageAt,
          until,
          tx,
          reservedTokens,
        ))
      ) {
        return false;
      }
      await this.tutor.insertMessage(
        member.organizationId,
        conversation.id,
        {
          id: userMessageId,
          role: 'user',
          content: question,
          citations: [],
          status: 'complete',
          input_tokens: null,
          output_tokens: null,
          provider: null,
          model: null,
          finish_reason: null,
          created_at: userMessageAt,
        },
        tx,
      );
      return true;
    });
    if (!claimed) throw ApiError.conflict('tutor_busy', 'This conversation is still answering a question.');
    const passages: NumberedPassage[] = passageRows.map((p, i) => ({
      index: i + 1,
      chunk_id: p.chunk_id,
      lesson_id: p.lesson_id,
      lesson_title: p.lesson_title,
      lesson_position: p.lesson_position,
      text: p.text,
    }));
    return new TutorAnswer(
      {
        organizationId: member.organizationId,
        userId: member.userId,
        conversationId: conversation.id,
        userMessageId,
        userMessageAt,
        locale: settled(user).locale,
        course: { title: course.title, language: course.language },
        passages,
        history: historyRows.filter((m) => m.content.length > 0).map((m) => ({ role: m.role, content: m.content })),
        question,
        urlOf: (lessonId) => `${this.config.webUrl}/courses/${course.slug}/lessons/${lessonId}`,
      },
      {
        tutor: this.tutor,
        usage: this.usage,
        transactions: this.transactions,
        clock: this.clock,
        provider: this.provider,
        local: this.local,
        maxOutputTokens: this.config.ai.maxOutputTokens,
      },
    );
  }

  /** The organization's switches: tutor on (else 404 `feature_disabled`), minors allowed (else 403). */
  private ensureTutor(switches: { tutorEnabled: boolean; minorsAllowed: boolean }, credential: Credential): void {
    if (!switches.tutorEnabled) {
      throw ApiError.notFound('The AI tutor is switched off in this organization.', 'feature_disabled');
    }
    if (credential.minor && !switches.minorsAllowed) {
      throw ApiError.forbidden('This organization does not offer the AI tutor to minors.', 'minor_restricted');
    }
  }

  private async own(member: Membership, conversationId: string): Promise<ConversationRow> {
    const row = await this.tutor.find(member.organizationId, member.userId, idOr404(conversationId));
    if (!row) throw ApiError.notFound();
    return row;
  }

  /** The course as the member may reach it (the catalog's rule), with their enrollment here. */
  private reachable(member: Membership, courseId: string): Promise<ReachableCourse | null> {
    return this.catalog.reachable(member.organizationId, courseId, (id) =>
      this.progress.enrollment(member.organizationId, member.userId, id),
    );
  }

  private async reach(member: Membership, courseId: string): Promise<ReachableCourse> {
    const reachable = await this.reachable(member, courseId);
    if (!reachable) throw ApiError.notFound();
    return reachable;
  }
}

/** Characters per token assumed when estimating a prompt (conservative for Latin scripts). */
const CHARS_PER_TOKEN = 3;
/** The fixed part of the prompt (instructions, course header, formatting), in characters. */
const PROMPT_OVERHEAD_CHARS = 3000;

/** The prompt's size in tokens, over-estimated: question, passages, history and the fixed instructions. */
function promptEstimate(
  question: string,
  passages: readonly { text: string }[],
  history: readonly { content: string }[],
): number {
  const chars =
    PROMPT_OVERHEAD_CHARS +
    question.length +
    passages.reduce((n, p) => n + p.text.length, 0) +
    history.reduce((n, m) => n + m.content.length, 0);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The value of a settled promise, or its error thrown. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

function toDto(row: ConversationRow): ConversationDto {
  return {
    id: row.id,
    course_id: row.course_id,
    lesson_id: row.lesson_id,
    title: row.title,
    messages_count: row.messages_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toMessageDto(row: MessageRow): TutorMessageDto {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    citations: row.citations,
    status: row.status,
    usage:
      row.input_tokens === null || row.output_tokens === null
        ? null
        : { input_tokens: row.input_tokens, output_tokens: row.output_tokens },
    provider: row.provider,
    model: row.model,
    created_at: row.created_at.toISOString(),
  };
}
