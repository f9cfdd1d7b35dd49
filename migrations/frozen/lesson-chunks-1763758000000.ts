// A frozen copy of src/modules/learning/editor/lesson-chunks.ts as of migration 1763758000000: migrations import
// nothing from src/modules, and a migration keeps the rules of its day when the editor's rules change later.
import { createHash } from 'node:crypto';

/**
 * Lessons cut into passages for retrieval (extensions-v2 23.2): split on Markdown headings and blank lines, the
 * pieces merged to 300..1 200 characters; a longer paragraph is cut at sentence ends into pieces of at most 1 600.
 * A fenced code block is never split at its inner blank lines. Passages are derived data of the lesson, rewritten
 * in the editor's transaction whenever its title or content changes.
 */
export const CHUNK_LIMITS = { min: 300, target: 1200, max: 1600 } as const;

interface Piece {
  text: string;
  heading: boolean;
}

const FENCE = /^\s{0,3}(```|~~~)/;
const HEADING = /^\s{0,3}#{1,6}(\s|$)/;
/** A sentence ends at `.`, `!`, `?` or `…` (optionally closed by quotes or brackets) followed by whitespace. */
const SENTENCE_END = /(?<=[.!?…]["'”’»)\]]*)\s+/u;

/** The blocks of a Markdown text: headings, paragraphs between blank lines, whole fenced code blocks. */
function blocks(markdown: string): Piece[] {
  const out: Piece[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    const text = paragraph.join('\n').trim();
    if (text) out.push({ text, heading: false });
    paragraph = [];
  };
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const code = [line];
      while (++i < lines.length) {
        code.push(lines[i]);
        if (lines[i].trimStart().startsWith(fence[1])) break;
      }
      paragraph = code;
      flush();
    } else if (HEADING.test(line)) {
      flush();
      out.push({ text: line.trim(), heading: true });
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return out;
}

/** A text of at most `max` characters per piece, cut at the last whitespace before the limit when there is one. */
function hardCut(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const at = space > max / 2 ? space : max;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** A block longer than the target, cut at sentence ends into pieces up to the target (a single sentence up to max). */
function splitLong(block: Piece): Piece[] {
  if (block.text.length <= CHUNK_LIMITS.target) return [block];
  const pieces: string[] = [];
  let current = '';
  for (const sentence of block.text.split(SENTENCE_END)) {
    if (!sentence) continue;
    const joined = current ? `${current} ${sentence}` : sentence;
    if (joined.length <= CHUNK_LIMITS.target) {
      current = joined;
      continue;
    }
    if (current) pieces.push(current);
    current = '';
    if (sentence.length <= CHUNK_LIMITS.target) current = sentence;
    else pieces.push(...hardCut(sentence, CHUNK_LIMITS.max));
  }
  if (current) pieces.push(current);
  return pieces.map((text) => ({ text, heading: false }));
}

/**
 * The passages of a lesson's Markdown, in order. Pieces are merged while the passage stays within 1 200
 * characters; a heading starts a new passage once the current one has 300, and never ends one (it moves on with
 * what follows it).
 */
export function chunkLesson(markdown: string): string[] {
  const pieces = blocks(markdown).flatMap(splitLong);
  const chunks: string[] = [];
  let current: Piece[] = [];
  const length = (ps: Piece[]): number => ps.reduce((n, p, i) => n + p.text.length + (i ? 2 : 0), 0);
  const flush = (): void => {
    // A heading left last goes with the text it titles.
    const carried: Piece[] = [];
    while (current.length > 1 && current[current.length - 1].heading) carried.unshift(current.pop()!);
    if (current.length) chunks.push(current.map((p) => p.text).join('\n\n'));
    current = carried;
  };
  for (const piece of pieces) {
    const size = length(current);
    if (current.length && piece.heading && size >= CHUNK_LIMITS.min) flush();
    else if (current.length && size + 2 + piece.text.length > CHUNK_LIMITS.target) flush();
    current.push(piece);
  }
  if (current.length) chunks.push(current.map((p) => p.text).join('\n\n'));
  return chunks;
}

/**
 * A passage id that stays the same while the passage does: derived from the lesson, the passage's text and its
 * occurrence among identical passages of the lesson, so editing one paragraph keeps the ids (and so the citations
 * and proposal sources) of the others. Formatted as an RFC 9562 version 8 UUID.
 */
export function chunkId(lessonId: string, text: string, occurrence: number): string {
  const hex = createHash('sha256').update(`${lessonId.toLowerCase()}\n${occurrence}\n${text}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface LessonChunk {
  id: string;
  position: number;
  text: string;
}

/** The passages of a lesson with their stable ids and positions (1..n). */
export function lessonChunks(lessonId: string, markdown: string): LessonChunk[] {
  const seen = new Map<string, number>();
  return chunkLesson(markdown).map((text, i) => {
    const occurrence = seen.get(text) ?? 0;
    seen.set(text, occurrence + 1);
    return { id: chunkId(lessonId, text, occurrence), position: i + 1, text };
  });
}

/**
 * The search vector of a passage, built like the lesson vectors (migration SearchVectors): the plain and the
 * accent-folded stems of the course language. The passage's text weighs B; the lesson title is there too, so every
 * passage of a lesson can be found by its subject, but at the lowest weight (D): weighted A as in the lesson
 * vectors, a title word outranked the passages whose own text answers the question (bench/README.md, tutor:
 * precision@6 85.8 % with the title at A, 89.2 % at D, 91.7 % without it on the benchmark course).
 */
export function chunkVectorSql(language: string, title: string, text: string): string {
  const of = (plain: string, folded: string): string =>
    [
      `setweight(to_tsvector('${plain}'::regconfig, ${title}), 'D')`,
      `setweight(to_tsvector('${folded}'::regconfig, ${title}), 'D')`,
      `setweight(to_tsvector('${plain}'::regconfig, ${text}), 'B')`,
      `setweight(to_tsvector('${folded}'::regconfig, ${text}), 'B')`,
    ].join(' || ');
  return `(CASE ${language} WHEN 'es' THEN ${of('spanish', 'es_unaccent')} ELSE ${of('english', 'en_unaccent')} END)`;
}

/** Runs one SQL statement (a TypeORM manager or a migration's query runner). */
export type SqlRunner = (sql: string, params: unknown[]) => Promise<unknown>;

/** Rewrites the passages of one lesson: the old ones go, the current ones are inserted with their vectors. */
export async function writeLessonChunks(
  run: SqlRunner,
  lesson: { id: string; course_id: string; title: string; content_md: string; language: string },
): Promise<number> {
  const chunks = lessonChunks(lesson.id, lesson.content_md);
  await run(`DELETE FROM lesson_chunks WHERE lesson_id = $1`, [lesson.id]);
  if (chunks.length === 0) return 0;
  await run(
    `INSERT INTO lesson_chunks (id, course_id, lesson_id, position, text, language, search_vector)
     SELECT c.id, $1, $2, c.position, c.text, $3::text, ${chunkVectorSql('$3::text', '$4::text', 'c.text')}
     FROM unnest($5::uuid[], $6::int[], $7::text[]) AS c(id, position, text)`,
    [
      lesson.course_id,
      lesson.id,
      lesson.language,
      lesson.title,
      chunks.map((c) => c.id),
      chunks.map((c) => c.position),
      chunks.map((c) => c.text),
    ],
  );
  return chunks.length;
}
