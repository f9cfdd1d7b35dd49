import { randomUUID } from 'node:crypto';
import type { Clock } from '@/core/clock/clock';
import type { TransactionRunner } from '@/core/database/transaction';
import type { AiUsageService, AiCallStatus } from '@/modules/assistant/ai-usage';
import { CitationTracker, type NumberedPassage } from './citations';
import type { Locale } from './prompts/tutor-prompt';
import { tutorMessages } from './prompts/tutor-prompt';
import { type AiProvider, AiProviderError, type ChatMessage, estimateTokens } from './providers/ai-provider';
import { LOCAL_MODEL } from './providers/local.provider';
import type { MessageStatus, TutorRepository } from './tutor.repository';

/** One event of the answer stream (extensions-v2 23.4). */
export type TutorEvent =
  | { event: 'start'; data: object }
  | { event: 'delta'; data: { text: string } }
  | { event: 'citation'; data: object }
  | { event: 'done'; data: object }
  | { event: 'error'; data: { code: 'ai_provider_error' | 'ai_timeout' | 'internal_error'; message: string } };

/** The fixed answer when retrieval finds nothing (no provider call, 0 tokens), in the learner's language. */
export const DECLINE: Record<Locale, string> = {
  es: 'No encuentro esto en el curso. Prueba a preguntarlo de otra forma o revisa las lecciones.',
  en: "I can't find this in the course. Try asking in another way, or have a look at the lessons.",
};

export interface AnswerContext {
  organizationId: string;
  userId: string;
  conversationId: string;
  userMessageId: string;
  userMessageAt: Date;
  locale: Locale;
  course: { title: string; language: Locale };
  passages: NumberedPassage[];
  history: { role: 'user' | 'assistant'; content: string }[];
  question: string;
  urlOf: (lessonId: string) => string;
}

export interface AnswerDeps {
  tutor: TutorRepository;
  usage: AiUsageService;
  transactions: TransactionRunner;
  clock: Clock;
  provider: AiProvider;
  local: AiProvider;
  maxOutputTokens: number;
}

interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** What one provider call produced so far. */
interface Progress {
  text: string;
  usage: Usage | null;
  finish: 'stop' | 'length';
}

/**
 * One tutor answer, as a sequence of events for the stream. Retrieval found nothing: the fixed sentence. Otherwise
 * the provider answers from the prompt of extensions-v2 23.3; a remote failure before its first delta is metered
 * as its own failed call and the local provider answers instead; a failure after a delta ends the stream with
 * `error`. A learner who disconnects aborts the call: what was streamed is stored `interrupted` and metered. The
 * assistant message and its metered call are written in one transaction.
 */
export class TutorAnswer {
  readonly assistantMessageId = randomUUID();
  /** The conversation is free again (released with the stored answer, or at the end whatever happened). */
  private released = false;

  constructor(
    private readonly ctx: AnswerContext,
    private readonly deps: AnswerDeps,
  ) {}

  async *events(signal: AbortSignal): AsyncGenerator<TutorEvent> {
    try {
      const declining = this.ctx.passages.length === 0;
      const first = declining ? this.deps.local : this.deps.provider;
      yield {
        event: 'start',
        data: {
          conversation_id: this.ctx.conversationId,
          user_message_id: this.ctx.userMessageId,
          assistant_message_id: this.assistantMessageId,
          provider: first.name,
          model: first.model,
        },
      };
      if (declining) yield* this.decline();
      else yield* this.answer(signal);
    } finally {
      if (!this.released) await this.deps.tutor.releaseAnswering(this.ctx.organizationId, this.ctx.conversationId);
    }
  }

  private async *decline(): AsyncGenerator<TutorEvent> {
    const text = DECLINE[this.ctx.locale];
    yield { event: 'delta', data: { text } };
    await this.store({ text, usage: { input_tokens: 0, output_tokens: 0 }, finish: 'stop' }, this.deps.local, 'ok');
    yield this.done({ input_tokens: 0, output_tokens: 0 }, this.deps.local, 'stop');
  }

  private async *answer(signal: AbortSignal): AsyncGenerator<TutorEvent> {
    const messages = tutorMessages({
      locale: this.ctx.locale,
      courseTitle: this.ctx.course.title,
      courseLanguage: this.ctx.course.language,
      passages: this.ctx.passages.map((p) => ({
        n: p.index,
        lesson_position: p.lesson_position,
        lesson_title: p.lesson_title,
        text: p.text,
      })),
      history: this.ctx.history,
      question: this.ctx.question,
    });
    let provider = this.deps.provider;
    for (;;) {
      const progress: Progress = { text: '', usage: null, finish: 'stop' };
      const citations = new CitationTracker(this.ctx.passages, this.ctx.urlOf);
      try {
        for await (const chunk of provider.chat({
          messages,
          maxOutputTokens: this.deps.maxOutputTokens,
          temperature: 0.2,
          signal,
        })) {
          if (chunk.type === 'delta') {
            progress.text += chunk.text;
            yield { event: 'delta', data: { text: chunk.text } };
            for (const citation of citations.feed(chunk.text)) yield { event: 'citation', data: citation };
          } else if (chunk.type === 'usage') {
            progress.usage = { input_tokens: chunk.input_tokens, output_tokens: chunk.output_tokens };
          } else {
            progress.finish = chunk.reason;
          }
        }
      } catch (err) {
        const usage = progress.usage ?? this.estimate(provider, messages, progress.text);
        if (signal.aborted) {
          await this.store({ ...progress, usage }, provider, 'interrupted', citations);
          return;
        }
        if (progress.text === '' && provider !== this.deps.local) {
          // Nothing streamed yet: the failed call is metered on its own, and the local tutor answers.
          await this.deps.usage.record({
            organizationId: this.ctx.organizationId,
            userId: this.ctx.userId,
            feature: 'tutor',
            provider: provider.name,
            model: provider.model,
            inputTokens: 0,
            outputTokens: 0,
            status: 'error',
          });
          provider = this.deps.local;
          continue;
        }
        await this.store({ ...progress, usage }, provider, 'error', citations);
        yield { event: 'error', data: errorEvent(err) };
        return;
      }
      const usage = progress.usage ?? this.estimate(provider, messages, progress.text);
      await this.store({ ...progress, usage }, provider, 'ok', citations);
      yield this.done(usage, provider, progress.finish);
      return;
    }
  }

  /** Token estimate when the provider reported none (ceil(bytes / 4); the local one counts question and passages). */
  private estimate(provider: AiProvider, messages: ChatMessage[], text: string): Usage {
    const input =
      provider.model === LOCAL_MODEL
        ? [this.ctx.question, ...this.ctx.passages.slice(0, 3).map((p) => p.text)].join('\n')
        : messages.map((m) => m.content).join('\n');
    return { input_tokens: estimateTokens(input), output_tokens: estimateTokens(text) };
  }

  /** The assistant message and its metered call, in one transaction that also frees the conversation. */
  private async store(
    progress: Progress & { usage: Usage },
    provider: AiProvider,
    status: AiCallStatus,
    citations?: CitationTracker,
  ): Promise<void> {
    const now = this.deps.clock.now();
    // Strictly after the question, so the conversation reads in order even within one millisecond.
    const createdAt = new Date(Math.max(now.getTime(), this.ctx.userMessageAt.getTime() + 1));
    const messageStatus: MessageStatus =
      status === 'ok' ? 'complete' : status === 'interrupted' ? 'interrupted' : 'failed';
    await this.deps.transactions.run(async (tx) => {
      await this.deps.tutor.insertMessage(
        this.ctx.organizationId,
        this.ctx.conversationId,
        {
          id: this.assistantMessageId,
          role: 'assistant',
          content: progress.text,
          citations: citations?.all() ?? [],
          status: messageStatus,
          input_tokens: progress.usage.input_tokens,
          output_tokens: progress.usage.output_tokens,
          provider: provider.name,
          model: provider.model,
          finish_reason: status === 'ok' ? progress.finish : null,
          created_at: createdAt,
        },
        tx,
      );
      await this.deps.usage.record(
        {
          organizationId: this.ctx.organizationId,
          userId: this.ctx.userId,
          feature: 'tutor',
          provider: provider.name,
          model: provider.model,
          inputTokens: progress.usage.input_tokens,
          outputTokens: progress.usage.output_tokens,
          status,
          occurredAt: createdAt,
        },
        tx,
      );
      await this.deps.tutor.releaseAnswering(this.ctx.organizationId, this.ctx.conversationId, tx);
    });
    this.released = true;
  }

  private done(usage: Usage, provider: AiProvider, finish: 'stop' | 'length'): TutorEvent {
    return {
      event: 'done',
      data: {
        message_id: this.assistantMessageId,
        usage,
        provider: provider.name,
        model: provider.model,
        finish_reason: finish,
      },
    };
  }
}

function errorEvent(err: unknown): { code: 'ai_provider_error' | 'ai_timeout' | 'internal_error'; message: string } {
  if (err instanceof AiProviderError) {
    return err.failure === 'timeout'
      ? { code: 'ai_timeout', message: 'The AI provider took too long; the answer stops here.' }
      : { code: 'ai_provider_error', message: 'The AI provider failed; the answer stops here.' };
  }
  return { code: 'internal_error', message: 'Something went wrong; the answer stops here.' };
}
