/** Private-use characters that mark the matched words in `ts_headline` output (stripped from the text first). */
export const HIT_START = '\uE000';
export const HIT_END = '\uE001';

/**
 * A `ts_headline` excerpt of markdown turned into the plain-text snippet the API returns: markdown syntax removed
 * (links and images keep their text), the text's own square brackets turned into parentheses, then each matched
 * word wrapped in `[` and `]`, so brackets in a snippet always mean "matched" and nothing in it is markup.
 */
export function plainSnippet(headline: string): string {
  return (
    headline
      // Images and links keep their text: ![alt](url) → alt, [text](url) → text.
      .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
      // A link target cut by the excerpt: "](http://...".
      .replace(/\]\([^)\s]*\)?/g, ' ')
      // Emphasis, code, headings, quotes, tables, list bullets.
      .replace(/[*`~|]+/g, '')
      .replace(/(^|\s)[#>]+(?=\s)/g, '$1')
      .replace(/(^|\s)[-+](?=\s)/g, '$1')
      .replace(/(^|[\s(])_+|_+(?=[\s).,;:!?]|$)/g, '$1')
      .replace(/\[/g, '(')
      .replace(/\]/g, ')')
      .replaceAll(HIT_START, '[')
      .replaceAll(HIT_END, ']')
      // Words matched side by side read as one highlighted phrase.
      .replace(/\]\s*\[/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
