import { randomInt } from 'node:crypto';
import { CODE_ALPHABET, formatCode, normalizeCode } from './certificate-code';

const draw = (alphabet: string, n: number): string =>
  Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');

describe('certificate codes', () => {
  it('have the form <PREFIX>-XXXX-XXXX with the prefix telling the type', () => {
    expect(formatCode('course', draw)).toMatch(
      /^CRS-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}$/,
    );
    expect(formatCode('program', draw)).toMatch(/^PRG-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  });

  it('never use look-alike characters', () => {
    for (const ch of '01OIL') expect(CODE_ALPHABET).not.toContain(ch);
    expect(CODE_ALPHABET).toHaveLength(31);
  });

  it('normalize to upper case without spaces', () => {
    expect(normalizeCode(' crs-ab2c - d3ef ')).toBe('CRS-AB2C-D3EF');
    expect(normalizeCode('LEGACY 12345')).toBe('LEGACY12345');
  });
});
