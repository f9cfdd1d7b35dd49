import { isValidSlug, numberedSlug, slugFromTitle, suffixedSlug } from './slug';

describe('slugFromTitle', () => {
  it.each([
    ['Introducción a la Programación', 'introduccion-a-la-programacion'],
    ['  Niños & Matemáticas: ¡Álgebra!  ', 'ninos-matematicas-algebra'],
    ['C++ for Beginners (2026)', 'c-for-beginners-2026'],
    ['Straße über Ærø', 'strasse-uber-aero'],
    ['Ça va? Œuvre', 'ca-va-oeuvre'],
    ['multiple---dashes___and   spaces', 'multiple-dashes-and-spaces'],
    ['AI', 'ai-course'],
    ['X', 'x-course'],
    ['日本語のコース', 'course'],
    ['!!!', 'course'],
  ])('%s → %s', (title, slug) => {
    expect(slugFromTitle(title)).toBe(slug);
    expect(isValidSlug(slugFromTitle(title))).toBe(true);
  });

  it('cuts long titles at a word boundary within 80 characters', () => {
    const slug = slugFromTitle('palabra '.repeat(30));
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug).toMatch(/^(palabra-)+palabra$/);
    const oneWord = slugFromTitle('a'.repeat(120));
    expect(oneWord).toBe('a'.repeat(80));
  });

  it('never yields a UUID-shaped slug (paths take an id or a slug)', () => {
    const slug = slugFromTitle('123e4567-e89b-12d3-a456-426614174000');
    expect(slug).toBe('123e4567-e89b-12d3-a456-426614174000-course');
    expect(isValidSlug(slug)).toBe(true);
  });
});

describe('isValidSlug', () => {
  it.each([
    ['abc', true],
    ['a'.repeat(80), true],
    ['a'.repeat(81), false],
    ['ab', false],
    ['intro-python-3', true],
    ['-intro', false],
    ['intro-', false],
    ['intro--python', false],
    ['Intro', false],
    ['intro_python', false],
    ['introducción', false],
    ['123e4567-e89b-12d3-a456-426614174000', false],
  ])('%s: %s', (slug, valid) => {
    expect(isValidSlug(slug)).toBe(valid);
  });
});

describe('numberedSlug', () => {
  it('numbers from 2 and stays within 80 characters', () => {
    expect(numberedSlug('intro', 1)).toBe('intro');
    expect(numberedSlug('intro', 2)).toBe('intro-2');
    expect(numberedSlug('a'.repeat(80), 12)).toBe(`${'a'.repeat(77)}-12`);
    expect(numberedSlug(`${'a'.repeat(77)}-bc`, 2)).toBe(`${'a'.repeat(77)}-2`);
  });
});

describe('suffixedSlug', () => {
  it('appends a suffix within 80 characters', () => {
    expect(suffixedSlug('intro', 'x7k2mp')).toBe('intro-x7k2mp');
    const long = suffixedSlug('a'.repeat(80), 'x7k2mp');
    expect(long).toBe(`${'a'.repeat(73)}-x7k2mp`);
    expect(isValidSlug(long)).toBe(true);
  });
});
