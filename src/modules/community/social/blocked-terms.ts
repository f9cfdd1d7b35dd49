/**
 * Blocked terms (extensions-v2 11.1, 12): matched case- and accent-insensitively, as whole words (a term is not
 * found inside a longer word: "ass" does not match "class"). A term may hold several words.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function containsBlockedTerm(text: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false;
  const folded = foldText(text);
  return terms.some((term) => {
    const t = foldText(term.trim());
    if (!t) return false;
    const words = t.split(/\s+/).map(escape).join('\\s+');
    return new RegExp(`(?<![\\p{L}\\p{N}_])${words}(?![\\p{L}\\p{N}_])`, 'u').test(folded);
  });
}
