import type { ErrorDetail } from '@/core/http/api-error';
import { snippetOf } from './citations';
import type { ProposalKindName } from './dto/quiz-proposal.dto';
import type { StoredQuestion } from './quiz-proposals.repository';

export interface DraftQuestion {
  prompt: string;
  kind: ProposalKindName;
  options: { text: string; correct: boolean }[];
  explanation: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One raw question in the asked shape, or null. */
function draft(raw: unknown, kinds: readonly ProposalKindName[]): (DraftQuestion & { source: string }) | null {
  if (!isRecord(raw)) return null;
  const { prompt, kind, options, explanation, source_chunk: source } = raw;
  if (typeof prompt !== 'string' || !prompt.trim() || typeof source !== 'string') return null;
  if (typeof kind !== 'string' || !kinds.includes(kind as ProposalKindName)) return null;
  if (!Array.isArray(options) || options.length > 20) return null;
  const parsed: DraftQuestion['options'] = [];
  for (const o of options) {
    if (!isRecord(o) || typeof o.text !== 'string' || typeof o.correct !== 'boolean') return null;
    parsed.push({ text: o.text.trim(), correct: o.correct });
  }
  if (explanation !== undefined && explanation !== null && typeof explanation !== 'string') return null;
  return {
    prompt: prompt.trim(),
    kind: kind as ProposalKindName,
    options: parsed,
    explanation: typeof explanation === 'string' && explanation.trim() ? explanation.trim() : null,
    source: source.trim().toLowerCase(),
  };
}

/**
 * The questions of a provider's JSON answer that may enter the lesson's quiz (extensions-v2 23.6): of an allowed
 * kind, following the quiz rules (`problems` is the editor's own check), and resting on a passage of the lesson;
 * the others are dropped. At most `count`, numbered from 1. Empty when nothing usable came back.
 */
export function usableQuestions(
  raw: string,
  context: {
    kinds: readonly ProposalKindName[];
    count: number;
    chunks: ReadonlyMap<string, string>;
    problems: (q: DraftQuestion) => ErrorDetail[];
  },
): StoredQuestion[] {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return [];
  }
  const list: unknown = Array.isArray(body) ? body : isRecord(body) ? body.questions : null;
  if (!Array.isArray(list)) return [];
  const out: StoredQuestion[] = [];
  for (const item of list) {
    if (out.length >= context.count) break;
    const q = draft(item, context.kinds);
    const text = q ? context.chunks.get(q.source) : undefined;
    if (!q || text === undefined || context.problems(q).length > 0) continue;
    out.push({
      index: out.length + 1,
      prompt: q.prompt,
      kind: q.kind,
      options: q.options,
      explanation: q.explanation,
      source: { chunk_id: q.source, snippet: snippetOf(text) },
      accepted_at: null,
    });
  }
  return out;
}
