import { isUuid } from '@/core/http/uuid';

export const SLUG_MIN = 3;
export const SLUG_MAX = 80;
/** Lower-case words of letters and digits joined by single hyphens (the database allows `[a-z0-9-]{3,80}`). */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A slug the catalog accepts: the pattern, 3..80 characters, and not shaped like a UUID (paths take either). */
export function isValidSlug(slug: string): boolean {
  return slug.length >= SLUG_MIN && slug.length <= SLUG_MAX && SLUG_PATTERN.test(slug) && !isUuid(slug);
}

/**
 * The slug of a title: accents and other marks dropped (`Programación` → `programacion`, `ñ` → `n`), anything but
 * letters and digits turned into one hyphen, at most 80 characters cut at a word boundary where possible. Too short
 * or empty results (a title of symbols or of another script) are completed to stay valid.
 */
export function slugFromTitle(title: string): string {
  let slug = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/[æ]/gi, 'ae')
    .replace(/[ø]/gi, 'o')
    .replace(/[œ]/gi, 'oe')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length > SLUG_MAX) {
    const cut = slug.slice(0, SLUG_MAX + 1);
    const boundary = cut.lastIndexOf('-');
    slug = (boundary >= SLUG_MIN ? cut.slice(0, boundary) : slug.slice(0, SLUG_MAX)).replace(/-+$/, '');
  }
  if (slug.length === 0) return 'course';
  if (slug.length < SLUG_MIN || isUuid(slug)) slug = `${slug}-course`.slice(0, SLUG_MAX);
  return slug;
}

/** The n-th alternative of a taken slug (`intro`, `intro-2`, `intro-3`...), still within 80 characters. */
export function numberedSlug(base: string, n: number): string {
  return n <= 1 ? base : suffixedSlug(base, String(n));
}

/** `base-suffix`, `base` shortened so the whole stays within 80 characters. */
export function suffixedSlug(base: string, suffix: string): string {
  return `${base.slice(0, SLUG_MAX - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}
