import type { AiProviderName } from '@/modules/assistant/ai-usage';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxOutputTokens: number;
  temperature: number;
  /** JSON mode (quiz proposals): one JSON object, not streamed by the remote provider. */
  json?: boolean;
  signal: AbortSignal;
}

export type ChatChunk =
  | { type: 'delta'; text: string }
  | { type: 'usage'; input_tokens: number; output_tokens: number }
  | { type: 'finish'; reason: 'stop' | 'length' };

/** The one interface of AI providers (extensions-v2 23.1), chosen at start. */
export interface AiProvider {
  readonly name: AiProviderName;
  readonly model: string;
  chat(req: ChatRequest): AsyncIterable<ChatChunk>;
}

/** The provider the deployment uses (remote when `AI_BASE_URL` is set, else the local one). */
export const AI_PROVIDER = Symbol('AI_PROVIDER');
/** The local provider, always there: the fallback when the remote one fails before its first delta. */
export const LOCAL_AI_PROVIDER = Symbol('LOCAL_AI_PROVIDER');

/** Why a provider call failed: `timeout` (no first byte in 15 s, or the whole call past its limit), else `provider`. */
export type ProviderFailure = 'timeout' | 'provider';

export class AiProviderError extends Error {
  constructor(
    readonly failure: ProviderFailure,
    message: string,
    /** The HTTP status the provider answered, when it answered one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AiProviderError';
  }
}

/** Token estimate when a provider reports none (and always for the local one): `ceil(UTF-8 bytes / 4)`. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** The abort reason of a learner who disconnected (distinguished from timeouts). */
export class ClientGone extends Error {
  constructor() {
    super('The client disconnected');
    this.name = 'ClientGone';
  }
}
