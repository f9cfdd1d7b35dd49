import { patternMaxLength } from './openapi-limits';

describe('patternMaxLength', () => {
  it.each([
    ['^[0-9]{6}$', 6],
    ['^#?[0-9A-Fa-f]{6}$', 7],
    ['^[A-Za-z0-9_-]{20,128}$', 128],
    ['^(\\d{6}|[A-Za-z0-9]{5}-[A-Za-z0-9]{5})$', 11],
    ['^(?:ab|c){2}$', 4],
    ['^a\\.b$', 3],
  ])('%s is at most %i characters', (pattern, max) => {
    expect(patternMaxLength(pattern)).toBe(max);
  });

  it.each(['^[a-z]+$', '^a*$', '^a{2,}$', '[0-9]{6}', '^[0-9]{6}', '^(ab$', '^a\\$'])(
    '%s has no bound it can read',
    (p) => {
      expect(patternMaxLength(p)).toBeUndefined();
    },
  );
});
