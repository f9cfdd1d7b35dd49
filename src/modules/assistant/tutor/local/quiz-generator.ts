import { createHash } from 'node:crypto';
import type { ParsedQuizPrompt, ProposalKind } from '@/modules/assistant/tutor/prompts/quiz-prompt';
import type { Locale } from '@/modules/assistant/tutor/prompts/tutor-prompt';
import { fold, sentences, stripMarkdown } from './text';

/** A proposed question in the shape the remote provider is asked for. */
export interface GeneratedQuestion {
  prompt: string;
  kind: ProposalKind;
  options: { text: string; correct: boolean }[];
  explanation: string;
  source_chunk: string;
}

/** Frequent words of 4 letters or more that say nothing about a lesson's subject (folded). */
const STOP_WORDS: Record<Locale, ReadonlySet<string>> = {
  es: new Set(
    (
      'para como pero porque cuando donde este esta estos estas esto aquel aquella aquellos ese esa esos esas eso ' +
      'tiene tienen tener hace hacen hacer puede pueden poder debe deben deber sobre entre hasta desde durante ' +
      'tambien solo solamente cada todo toda todos todas otro otra otros otras mismo misma mismos mismas muy mucho ' +
      'mucha muchos muchas poco poca pocos pocas algo alguno alguna algunos algunas ninguno ninguna nada siempre ' +
      'nunca ahora antes despues luego aqui alli asi bien mejor peor mas menos tanto tanta tantos tantas segun ' +
      'sino aunque mientras tras contra hacia ante bajo cual cuales quien quienes cuyo cuya cuanto cuanta ' +
      'cuantos cuantas sera seran sido siendo estar estado estan estamos somos eres fueron fuera habia hemos ' +
      'haber hay habra tenemos vamos usted ustedes ellos ellas nosotros vosotros suyo suya suyos suyas nuestro ' +
      'nuestra nuestros nuestras vuestro vuestra leccion curso ejemplo ejemplos forma manera parte veces vez'
    ).split(' '),
  ),
  en: new Set(
    (
      'that this these those with from have has had having into onto upon than then them they their there ' +
      'theirs what when where which while whom whose will would shall should could might must been being were ' +
      'does doing done about above after again against also because before below between both each every ' +
      'other others some such more most much many very only just even same your yours ours ourselves itself ' +
      'himself herself themselves here over under until unless whether through during without within across ' +
      'along among around like also can cannot cant dont doesnt didnt isnt arent wasnt werent make makes made ' +
      'take takes took used uses using first second next last well lesson course example examples part parts ' +
      'thing things'
    ).split(' '),
  ),
};

const BLANK = '_____';
const TRUE_FALSE: Record<Locale, [string, string]> = { es: ['Verdadero', 'Falso'], en: ['True', 'False'] };
const FILL: Record<Locale, string> = { es: 'Completa la frase: ', en: 'Fill in the blank: ' };
const STATE: Record<Locale, string> = { es: '¿Verdadero o falso? ', en: 'True or false? ' };
const SAYS: Record<Locale, (s: string) => string> = {
  es: (s) => `La lección dice: «${s}»`,
  en: (s) => `The lesson says: "${s}"`,
};

/** A small deterministic generator (mulberry32) seeded from the lesson id: the same lesson gives the same quiz. */
function seededRandom(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32BE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(list: T[], random: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

interface Term {
  key: string;
  /** As first written in the lesson, in lower case. */
  text: string;
  count: number;
  first: number;
}

/** Words of 4 letters or more outside the stop list that occur at least twice, most frequent first. */
function keyTerms(text: string, language: Locale): Term[] {
  const terms = new Map<string, Term>();
  let index = 0;
  for (const match of text.matchAll(/\p{L}+/gu)) {
    const word = match[0];
    const key = fold(word);
    index++;
    if ([...word].length < 4 || STOP_WORDS[language].has(key)) continue;
    const term = terms.get(key);
    if (term) term.count++;
    else terms.set(key, { key, text: word.toLowerCase(), count: 1, first: index });
  }
  return [...terms.values()]
    .filter((t) => t.count >= 2)
    .sort((a, b) => b.count - a.count || a.first - b.first)
    .slice(0, 16);
}

/** The sentence with the first occurrence of `term` (as a whole word, any case or accents) replaced. */
function replaceTerm(sentence: string, term: Term, by: string): string | null {
  for (const match of sentence.matchAll(/\p{L}+/gu)) {
    if (fold(match[0]) === term.key) {
      return sentence.slice(0, match.index) + by + sentence.slice(match.index + match[0].length);
    }
  }
  return null;
}

/**
 * The local quiz generator (extensions-v2 23.6), deterministic and seeded by the lesson id. Key terms are the
 * lesson's most frequent words of 4 or more letters outside a stop list occurring at least twice. A `single`
 * question blanks a key term in a sentence of 40..240 characters, with that term and three other key terms as
 * options; a `true_false` question states the sentence as written (true) or with the term swapped for another key
 * term (false). Kinds alternate in the order asked; `multiple` is not generated locally (a proposal asking only for
 * it ends with no question). Each question names the passage its sentence comes from.
 */
export function generateQuiz(prompt: ParsedQuizPrompt): GeneratedQuestion[] {
  const language = prompt.courseLanguage;
  const random = seededRandom(prompt.lessonId);
  const plain = prompt.chunks.map((c) => ({ id: c.id, text: stripMarkdown(c.text) }));
  const terms = keyTerms(plain.map((c) => c.text).join('\n'), language);
  const kinds = prompt.kinds.filter((k) => k === 'single' || k === 'true_false');
  if (kinds.length === 0 || terms.length < 2) return [];

  const candidates: { sentence: string; chunk: string; term: Term }[] = [];
  for (const chunk of plain) {
    for (const sentence of sentences(chunk.text)) {
      if (sentence.length < 40 || sentence.length > 240) continue;
      const inside = new Set((sentence.match(/\p{L}+/gu) ?? []).map(fold));
      for (const term of terms) if (inside.has(term.key)) candidates.push({ sentence, chunk: chunk.id, term });
    }
  }

  const questions: GeneratedQuestion[] = [];
  const usedSentences = new Set<string>();
  for (const candidate of shuffle(candidates, random)) {
    if (questions.length >= prompt.count) break;
    if (usedSentences.has(candidate.sentence)) continue;
    const others = shuffle(
      terms.filter((t) => t.key !== candidate.term.key),
      random,
    );
    let kind = kinds[questions.length % kinds.length];
    if (kind === 'single' && others.length < 3) {
      if (!kinds.includes('true_false')) continue;
      kind = 'true_false';
    }
    const explanation = SAYS[language](candidate.sentence);
    if (kind === 'single') {
      const blanked = replaceTerm(candidate.sentence, candidate.term, BLANK);
      if (!blanked) continue;
      const options = shuffle(
        [
          { text: candidate.term.text, correct: true },
          ...others.slice(0, 3).map((t) => ({ text: t.text, correct: false })),
        ],
        random,
      );
      questions.push({
        prompt: FILL[language] + blanked,
        kind,
        options,
        explanation,
        source_chunk: candidate.chunk,
      });
    } else {
      const truthful = random() < 0.5;
      const statement = truthful ? candidate.sentence : replaceTerm(candidate.sentence, candidate.term, others[0].text);
      if (!statement) continue;
      const [yes, no] = TRUE_FALSE[language];
      questions.push({
        prompt: STATE[language] + statement,
        kind,
        options: [
          { text: yes, correct: truthful },
          { text: no, correct: !truthful },
        ],
        explanation,
        source_chunk: candidate.chunk,
      });
    }
    usedSentences.add(candidate.sentence);
  }
  return questions;
}
