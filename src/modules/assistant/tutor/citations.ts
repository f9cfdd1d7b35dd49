import { stripMarkdown } from './local/text';

export const SNIPPET_MAX = 300;

/** A passage as the tutor numbered it (1..6) for one answer. */
export interface NumberedPassage {
  index: number;
  chunk_id: string;
  lesson_id: string;
  lesson_title: string;
  lesson_position: number;
  text: string;
}

/** The `citation` event of extensions-v2 23.4 (also stored with the message). */
export interface Citation {
  index: number;
  lesson_id: string;
  lesson_title: string;
  lesson_position: number;
  chunk_id: string;
  snippet: string;
  url: string;
}

/** The passage as plain text of at most 300 characters (cut at a word, marked with `…`). */
export function snippetOf(text: string): string {
  const plain = stripMarkdown(text).replace(/\s+/g, ' ').trim();
  if (plain.length <= SNIPPET_MAX) return plain;
  const cut = plain.slice(0, SNIPPET_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > SNIPPET_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Watches the streamed text for passage markers `[n]` and reports each passage the first time its marker appears
 * (a marker may arrive split over two deltas). Markers naming no passage are left alone.
 */
export class CitationTracker {
  private text = '';
  private readonly cited = new Set<number>();
  private readonly found: Citation[] = [];

  constructor(
    private readonly passages: NumberedPassage[],
    private readonly urlOf: (lessonId: string) => string,
  ) {}

  /** The citations whose markers first appear with this delta, in order of appearance. */
  feed(delta: string): Citation[] {
    const from = Math.max(0, this.text.length - 8);
    this.text += delta;
    const out: Citation[] = [];
    for (const match of this.text.slice(from).matchAll(/\[(\d{1,3})\]/g)) {
      const index = Number(match[1]);
      const passage = this.passages.find((p) => p.index === index);
      if (!passage || this.cited.has(index)) continue;
      this.cited.add(index);
      const citation: Citation = {
        index,
        lesson_id: passage.lesson_id,
        lesson_title: passage.lesson_title,
        lesson_position: passage.lesson_position,
        chunk_id: passage.chunk_id,
        snippet: snippetOf(passage.text),
        url: this.urlOf(passage.lesson_id),
      };
      this.found.push(citation);
      out.push(citation);
    }
    return out;
  }

  /** Every citation so far, in order of appearance. */
  all(): Citation[] {
    return [...this.found];
  }
}
