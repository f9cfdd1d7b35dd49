import type { Locale, ParsedTutorPrompt } from '@/modules/assistant/tutor/prompts/tutor-prompt';
import { distinctWords, sentences, stripMarkdown, words } from './text';

const HEADER: Record<Locale, string> = {
  es: 'Esto es lo que dice el curso sobre tu pregunta:',
  en: 'Here is what the course says about your question:',
};
const FOOTER: Record<Locale, string> = {
  es: '(Respuesta extractiva: citas literales del curso, sin IA generativa.)',
  en: '(Extractive answer: verbatim quotes from the course, no generative AI.)',
};

/** How many passages the local answer quotes, and how many sentences of each. */
const PASSAGES = 3;
const SENTENCES = 2;

export interface ExtractiveAnswer {
  /** The answer, one line per streamed delta. */
  lines: string[];
  /** What the token estimate counts as input: the question and the passages quoted (extensions-v2 28). */
  input: string;
}

/**
 * The local tutor's answer (extensions-v2 23.3), deterministic: for each of the 3 best passages, its sentences
 * (Markdown stripped) scored by how many distinct question words (lower case, accents folded, 3 letters or more)
 * they contain; up to 2 best with a score above 0, in their original order, quoted on one line with the passage's
 * marker. A passage none of whose sentences contains a question word (it matched by stem or by its lesson title)
 * is quoted by its first sentence, so every passage retrieval found is shown and cited. In the course's language,
 * and it says that it quotes.
 */
export function extractiveAnswer(prompt: ParsedTutorPrompt): ExtractiveAnswer {
  const language = prompt.courseLanguage;
  const asked = distinctWords(prompt.question, 3);
  const used = [...prompt.passages].sort((a, b) => a.n - b.n).slice(0, PASSAGES);
  const lines = [HEADER[language]];
  for (const passage of used) {
    const list = sentences(stripMarkdown(passage.text));
    if (list.length === 0) continue;
    const scored = list.map((text, index) => ({
      text,
      index,
      score: new Set(words(text).filter((w) => asked.has(w))).size,
    }));
    const best = scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, SENTENCES)
      .sort((a, b) => a.index - b.index);
    const quoted = best.length ? best.map((s) => s.text) : [list[0]];
    lines.push(`- ${quoted.join(' ')} [${passage.n}]`);
  }
  lines.push(FOOTER[language]);
  return { lines, input: [prompt.question, ...used.map((p) => p.text)].join('\n') };
}
