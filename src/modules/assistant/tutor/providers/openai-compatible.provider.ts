import { setTimeout as sleep } from 'node:timers/promises';
import { type AiProvider, AiProviderError, type ChatChunk, type ChatRequest, ClientGone } from './ai-provider';

export interface RemoteOptions {
  /** The HTTP client: the core's guarded fetch (public addresses only, loopback outside production; extensions-v3 6.7). */
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  /** Ends in `/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** The whole call, from the first request to the last byte (`AI_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Until the response starts (its status line and headers). */
  firstByteMs?: number;
  /** Tries of one call while nothing was streamed yet (429, 5xx, a dropped connection). */
  attempts?: number;
  /** First wait between tries; doubled each time, unless the provider's `Retry-After` says otherwise. */
  backoffMs?: number;
}

const FIRST_BYTE_MS = 15_000;
const ATTEMPTS = 3;
const BACKOFF_MS = 500;
/** A `Retry-After` longer than this is not waited for: the learner is watching. */
const MAX_RETRY_AFTER_MS = 10_000;

interface CompletionChunk {
  choices?: { delta?: { content?: unknown }; message?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  error?: { message?: unknown };
}

/** The wait before try `attempt + 1`: the provider's `Retry-After` (seconds or a date) when given, else doubling. */
export function retryDelay(attempt: number, retryAfter: string | null, backoffMs: number, now = Date.now()): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
  }
  return backoffMs * 2 ** (attempt - 1);
}

const retryable = (status: number): boolean => status === 429 || status >= 500;

/**
 * An OpenAI-compatible chat completions endpoint (extensions-v2 23.1): `POST {base}/chat/completions`, streamed as
 * server-sent `data:` lines until `[DONE]` with the usage in the last chunk (`stream_options.include_usage`), or one
 * JSON object in JSON mode. 15 s to the first byte and `timeoutMs` for the whole call; 429, 5xx and dropped
 * connections are tried again with backoff (only before anything was streamed: a retry then would repeat the
 * answer). The caller's signal (the learner disconnecting) aborts the HTTP request itself.
 */
export class OpenAiCompatibleProvider implements AiProvider {
  readonly name = 'openai_compatible' as const;
  readonly model: string;

  constructor(private readonly options: RemoteOptions) {
    this.model = options.model;
  }

  async *chat(req: ChatRequest): AsyncIterable<ChatChunk> {
    const overall = new AbortController();
    const timer = setTimeout(
      () => overall.abort(new AiProviderError('timeout', 'The AI provider took too long to answer.')),
      this.options.timeoutMs,
    );
    const signal = AbortSignal.any([req.signal, overall.signal]);
    try {
      const res = await this.connect(req, signal);
      if (req.json) yield* this.readJson(res);
      else yield* this.readStream(res);
    } catch (err) {
      throw this.explain(err, req.signal, overall.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private body(req: ChatRequest): string {
    const common = {
      model: this.model,
      messages: req.messages,
      max_tokens: req.maxOutputTokens,
      temperature: req.temperature,
    };
    return JSON.stringify(
      req.json
        ? { ...common, stream: false, response_format: { type: 'json_object' } }
        : { ...common, stream: true, stream_options: { include_usage: true } },
    );
  }

  /** The response, once it has started with a 2xx; earlier failures are tried again while time remains. */
  private async connect(req: ChatRequest, signal: AbortSignal): Promise<Response> {
    const attempts = this.options.attempts ?? ATTEMPTS;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      const firstByte = new AbortController();
      const timer = setTimeout(
        () => firstByte.abort(new AiProviderError('timeout', 'The AI provider did not start answering in time.')),
        this.options.firstByteMs ?? FIRST_BYTE_MS,
      );
      let res: Response;
      try {
        res = await this.options.fetch(`${this.options.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: req.json ? 'application/json' : 'text/event-stream',
            ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
          },
          body: this.body(req),
          signal: AbortSignal.any([signal, firstByte.signal]),
        });
      } catch (err) {
        if (signal.aborted || firstByte.signal.aborted || attempt >= attempts) {
          throw firstByte.signal.aborted && !signal.aborted ? firstByte.signal.reason : err;
        }
        // A refused or dropped connection: worth another try.
        await this.wait(retryDelay(attempt, null, this.options.backoffMs ?? BACKOFF_MS), started, signal);
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (res.ok) return res;
      await res.body?.cancel().catch(() => undefined);
      if (!retryable(res.status) || attempt >= attempts) {
        throw new AiProviderError('provider', `The AI provider answered ${res.status}.`, res.status);
      }
      const delay = retryDelay(attempt, res.headers.get('retry-after'), this.options.backoffMs ?? BACKOFF_MS);
      await this.wait(delay, started, signal);
    }
  }

  /** Waits before another try, unless the wait would not end before the whole call's time is up. */
  private async wait(ms: number, started: number, signal: AbortSignal): Promise<void> {
    if (Date.now() - started + ms >= this.options.timeoutMs) {
      throw new AiProviderError('timeout', 'The AI provider kept failing until the time was up.');
    }
    await sleep(ms, undefined, { signal });
  }

  private async *readStream(res: Response): AsyncIterable<ChatChunk> {
    if (!res.body) throw new AiProviderError('provider', 'The AI provider sent no body.');
    const decoder = new TextDecoder();
    let buffer = '';
    let finished = false;
    for await (const part of res.body) {
      buffer += decoder.decode(part, { stream: true });
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (!line.startsWith('data:')) continue; // comments, `event:`, `id:` and blank separators
        const data = line.slice(5).trim();
        if (data === '[DONE]') return;
        for (const chunk of chunksOf(parse(data))) {
          if (chunk.type === 'finish') finished = true;
          yield chunk;
        }
      }
    }
    // Without `[DONE]` a stream that finished its choice is complete; one cut before is not.
    if (!finished) throw new AiProviderError('provider', 'The AI provider stream ended before the answer did.');
  }

  private async *readJson(res: Response): AsyncIterable<ChatChunk> {
    const body = parse(await res.text());
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new AiProviderError('provider', 'The AI provider sent no content.');
    yield { type: 'delta', text: content };
    yield* chunksOf({ usage: body.usage, choices: [{ finish_reason: body.choices?.[0]?.finish_reason ?? 'stop' }] });
  }

  /** What went wrong, in the provider's terms: the learner left, a timeout, or a provider failure. */
  private explain(err: unknown, client: AbortSignal, overall: AbortSignal): Error {
    if (client.aborted) return client.reason instanceof Error ? client.reason : new ClientGone();
    if (overall.aborted) return overall.reason as AiProviderError;
    if (err instanceof AiProviderError) return err;
    return new AiProviderError('provider', `The AI provider failed: ${(err as Error)?.message ?? 'unknown error'}`);
  }
}

function parse(data: string): CompletionChunk {
  try {
    return JSON.parse(data) as CompletionChunk;
  } catch {
    throw new AiProviderError('provider', 'The AI provider sent malformed JSON.');
  }
}

function chunksOf(chunk: CompletionChunk): ChatChunk[] {
  if (chunk.error) throw new AiProviderError('provider', 'The AI provider reported an error.');
  const out: ChatChunk[] = [];
  const choice = chunk.choices?.[0];
  const text = choice?.delta?.content;
  if (typeof text === 'string' && text.length > 0) out.push({ type: 'delta', text });
  const usage = chunk.usage;
  if (usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
    out.push({ type: 'usage', input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens });
  }
  if (typeof choice?.finish_reason === 'string') {
    out.push({ type: 'finish', reason: choice.finish_reason === 'length' ? 'length' : 'stop' });
  }
  return out;
}
