import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { JobsService } from '@/core/queue/jobs.service';
import { AiUsageService } from '@/modules/assistant/ai-usage';
import { CatalogService, LessonPassagesService } from '@/modules/learning/courses';
import { isUuid } from '@/core/http/uuid';
import { type EditorLessonDto, EditorService } from '@/modules/learning/editor';
import {
  type AcceptQuizProposalDto,
  type CreateQuizProposalDto,
  PROPOSAL_KINDS,
  type QuizProposalDto,
} from './dto/quiz-proposal.dto';
import { usableQuestions } from './proposal-output';
import { quizMessages } from './prompts/quiz-prompt';
import { AI_PROVIDER, type AiProvider, AiProviderError, estimateTokens } from './providers/ai-provider';
import { QUIZ_PROPOSAL } from './tutor.jobs';
import { type ProposalOutcome, type ProposalRow, QuizProposalsRepository } from './quiz-proposals.repository';

const RECENT = 20;
/** A proposal's JSON holds up to 10 questions with options and explanations: more room than a tutor answer. */
const TOKENS_PER_QUESTION = 350;
const MAX_PROPOSAL_TOKENS = 4_000;

function idOr404(id: string): string {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
}

/**
 * AI quiz proposals (extensions-v2 23.6): an editor asks for questions drawn from a lesson; a job asks the provider
 * (the local generator, or one JSON-mode call to the remote one); the questions that follow the quiz rules and rest
 * on a passage of the lesson are kept; the editor accepts the ones they want into the lesson's quiz, through the
 * editor's own rules. Metered as platform work (`quiz_proposal`, no organization).
 */
@Injectable()
export class QuizProposalsService {
  constructor(
    private readonly proposals: QuizProposalsRepository,
    private readonly editor: EditorService,
    private readonly catalog: CatalogService,
    private readonly passages: LessonPassagesService,
    private readonly usage: AiUsageService,
    private readonly jobs: JobsService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    @Inject(AI_PROVIDER) private readonly provider: AiProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** 202 with the queued proposal; 404 for a lesson not of the course; 409 `lesson_empty` for a lesson without text. */
  async create(
    courseId: string,
    lessonId: string,
    dto: CreateQuizProposalDto,
    actorId: string,
  ): Promise<QuizProposalDto> {
    const lesson = await this.editor.lesson(courseId, lessonId);
    if ((await this.passages.ofLesson(lesson.course_id, lesson.id)).length === 0) {
      throw ApiError.conflict('lesson_empty', 'The lesson has no content to draw questions from.');
    }
    const row = await this.transactions.run(async (tx) => {
      const created = await this.proposals.insert(
        {
          courseId: lesson.course_id,
          lessonId: lesson.id,
          count: dto.count ?? 5,
          kinds: dto.kinds ?? [...PROPOSAL_KINDS],
          createdBy: actorId,
          now: this.clock.now(),
        },
        tx,
      );
      await this.jobs.enqueue(QUIZ_PROPOSAL, { proposalId: created.id }, { organizationId: null, tx });
      return created;
    });
    return toDto(row);
  }

  async list(courseId: string, lessonId: string): Promise<{ items: QuizProposalDto[] }> {
    const lesson = await this.editor.lesson(courseId, lessonId);
    return { items: (await this.proposals.list(lesson.course_id, lesson.id, RECENT)).map(toDto) };
  }

  async get(courseId: string, lessonId: string, proposalId: string): Promise<QuizProposalDto> {
    const row = await this.proposals.find(idOr404(courseId), idOr404(lessonId), idOr404(proposalId));
    if (!row) throw ApiError.notFound();
    return toDto(row);
  }

  async remove(courseId: string, lessonId: string, proposalId: string): Promise<void> {
    if (!(await this.proposals.delete(idOr404(courseId), idOr404(lessonId), idOr404(proposalId)))) {
      throw ApiError.notFound();
    }
  }

  /**
   * Appends the chosen questions to the lesson's quiz (through `EditorService.appendQuizQuestions`, the rules of a
   * lesson PATCH) and marks them accepted, in one transaction under the proposal's lock. 409 `proposal_not_ready`
   * before it is ready, `proposal_question_accepted` when one was accepted before; 422 for an index it does not have
   * or a quiz the questions would break.
   */
  async accept(
    courseId: string,
    lessonId: string,
    proposalId: string,
    dto: AcceptQuizProposalDto,
  ): Promise<EditorLessonDto> {
    const [cid, lid, pid] = [idOr404(courseId), idOr404(lessonId), idOr404(proposalId)];
    await this.transactions.run(async (tx) => {
      const proposal = await this.proposals.lock(cid, lid, pid, tx);
      if (!proposal) throw ApiError.notFound();
      if (proposal.status !== 'ready') throw ApiError.conflict('proposal_not_ready', 'The proposal is not ready.');
      const chosen = dto.indexes.map((i) => proposal.questions.find((q) => q.index === i));
      const missing = dto.indexes.filter((_, k) => !chosen[k]);
      if (missing.length) {
        throw ApiError.validation([
          { field: 'indexes', message: `the proposal has no question ${missing.join(', ')}` },
        ]);
      }
      if (chosen.some((q) => q!.accepted_at !== null)) {
        throw ApiError.conflict('proposal_question_accepted', 'A chosen question was accepted before.');
      }
      await this.editor.appendQuizQuestions(
        cid,
        lid,
        chosen.map((q) => ({ prompt: q!.prompt, kind: q!.kind, options: q!.options, explanation: q!.explanation })),
        dto.passing_score,
        tx,
      );
      const at = this.clock.now().toISOString();
      await this.proposals.saveQuestions(
        pid,
        proposal.questions.map((q) => (dto.indexes.includes(q.index) ? { ...q, accepted_at: at } : q)),
        tx,
      );
    });
    return this.editor.lesson(cid, lid);
  }

  /**
   * The job: one provider call, its output checked, the outcome and its metered call written together. A failed
   * call is metered and tried again (3 tries); the last failure fails the proposal with `ai_timeout` or
   * `ai_provider_error`. Idempotent: a finished proposal is left alone.
   */
  async run(proposalId: string, attempt: number): Promise<void> {
    const proposal = await this.proposals.start(proposalId);
    if (!proposal) return;
    const [course, lesson, chunks] = await Promise.all([
      this.catalog.resolve(proposal.course_id),
      this.catalog.lesson(proposal.course_id, proposal.lesson_id),
      this.passages.ofLesson(proposal.course_id, proposal.lesson_id),
    ]);
    if (!course || !lesson) return; // deleted meanwhile: the proposal went with it
    const meter = { organizationId: null, userId: proposal.created_by, feature: 'quiz_proposal' as const };
    if (chunks.length === 0) {
      await this.transactions.run((tx) => this.proposals.finish(proposal.id, this.failed('lesson_empty', 0, 0), tx));
      return;
    }
    const messages = quizMessages({
      lessonId: lesson.id,
      lessonTitle: lesson.title,
      courseTitle: course.title,
      courseLanguage: course.language,
      count: proposal.count,
      kinds: proposal.kinds,
      chunks: chunks.map((c) => ({ id: c.id, text: c.text })),
    });
    let text = '';
    let usage: { input_tokens: number; output_tokens: number } | null = null;
    try {
      for await (const chunk of this.provider.chat({
        messages,
        maxOutputTokens: Math.min(
          MAX_PROPOSAL_TOKENS,
          Math.max(this.config.ai.maxOutputTokens, TOKENS_PER_QUESTION * proposal.count),
        ),
        temperature: 0.2,
        json: true,
        signal: new AbortController().signal,
      })) {
        if (chunk.type === 'delta') text += chunk.text;
        else if (chunk.type === 'usage')
          usage = { input_tokens: chunk.input_tokens, output_tokens: chunk.output_tokens };
      }
    } catch (err) {
      const code = err instanceof AiProviderError && err.failure === 'timeout' ? 'ai_timeout' : 'ai_provider_error';
      const final = attempt >= QUIZ_PROPOSAL.attempts;
      await this.transactions.run(async (tx) => {
        await this.usage.record({ ...meter, ...this.callOf(0, 0), status: 'error' }, tx);
        if (final) await this.proposals.finish(proposal.id, this.failed(code, 0, 0), tx);
      });
      if (!final) throw err;
      return;
    }
    const spent = usage ?? {
      input_tokens: estimateTokens(messages.map((m) => m.content).join('\n')),
      output_tokens: estimateTokens(text),
    };
    const questions = usableQuestions(text, {
      kinds: proposal.kinds,
      count: proposal.count,
      chunks: new Map(chunks.map((c) => [c.id, c.text])),
      problems: (q) => this.editor.questionProblems(q),
    });
    const outcome: ProposalOutcome = questions.length
      ? { ...this.callOf(spent.input_tokens, spent.output_tokens), status: 'ready', questions, errorCode: null }
      : this.failed('ai_invalid_output', spent.input_tokens, spent.output_tokens);
    await this.transactions.run(async (tx) => {
      if (await this.proposals.finish(proposal.id, outcome, tx)) {
        await this.usage.record(
          { ...meter, ...this.callOf(spent.input_tokens, spent.output_tokens), status: 'ok' },
          tx,
        );
      }
    });
  }

  /** Marks a proposal failed after its last try (the job runner gave up on it). */
  async markFailed(proposalId: string): Promise<void> {
    const proposal = await this.proposals.byId(proposalId);
    if (!proposal) return;
    await this.transactions.run((tx) => this.proposals.finish(proposal.id, this.failed('ai_provider_error', 0, 0), tx));
  }

  private callOf(
    inputTokens: number,
    outputTokens: number,
  ): Pick<ProposalOutcome, 'provider' | 'model' | 'inputTokens' | 'outputTokens' | 'finishedAt'> {
    return {
      provider: this.provider.name,
      model: this.provider.model,
      inputTokens,
      outputTokens,
      finishedAt: this.clock.now(),
    };
  }

  private failed(errorCode: string, inputTokens: number, outputTokens: number): ProposalOutcome {
    return { ...this.callOf(inputTokens, outputTokens), status: 'failed', questions: [], errorCode };
  }
}

function toDto(row: ProposalRow): QuizProposalDto {
  const finished = row.status === 'ready' || row.status === 'failed';
  return {
    id: row.id,
    course_id: row.course_id,
    lesson_id: row.lesson_id,
    status: row.status,
    count: row.count,
    kinds: row.kinds,
    provider: row.provider,
    model: row.model,
    questions: row.questions,
    error_code: row.error_code,
    usage:
      finished && row.input_tokens !== null && row.output_tokens !== null
        ? { input_tokens: row.input_tokens, output_tokens: row.output_tokens }
        : null,
    created_by: { user_id: row.created_by },
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}
