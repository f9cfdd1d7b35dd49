/**
 * Plain-text helpers of the local (extractive) provider: Markdown stripped to prose, sentences, and words compared
 * in lower case with accents folded.
 */

/**
 * Markdown as plain prose: headings, emphasis, code marks and block quotes lose their marks, links and images keep
 * their text, fenced code keeps its lines without the fences, list markers go.
 */
export function stripMarkdown(markdown: string): string {
  return (
    markdown
      .replace(/\r\n?/g, '\n')
      .replace(/^[ \t]{0,3}(```|~~~).*$/gm, '')
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
      // A heading becomes a sentence of its own.
      .replace(/^[ \t]{0,3}#{1,6}[ \t]*(.*?)[ \t]*#*[ \t]*$/gm, (_, title: string) =>
        /[.!?…:]$/.test(title) || title === '' ? title : `${title}.`,
      )
      .replace(/^[ \t]{0,3}>[ \t]?/gm, '')
      .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, '')
      .replace(/^[ \t]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$/gm, '')
      .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/(\*|_)(?=\S)([^*_\n]*?\S)\1/g, '$2')
      .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
      .replace(/`+([^`]*)`+/g, '$1')
      .replace(/<[^>\n]+>/g, '')
      .replace(/[ \t]+/g, ' ')
      .trim()
  );
}

/** Sentences of plain text: cut after `.`, `!`, `?`, `…` (and closing quotes) before whitespace, or at blank lines. */
export function sentences(text: string): string[] {
  return text
    .split(/\n\s*\n|(?<=[.!?…]["'”’»)\]]*)\s+/u)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => /\p{L}/u.test(s));
}

/** Lower case, accents folded (`Programación` -> `programacion`). */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The words of a text, folded. */
export function words(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The distinct folded words of at least `min` letters. */
export function distinctWords(text: string, min = 3): Set<string> {
  return new Set(words(text).filter((w) => [...w].length >= min));
}
