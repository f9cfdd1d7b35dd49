import { maskAddress, normalizeAddress, parseRecipient } from './suppression-address';

describe('suppression addresses', () => {
  it('normalizes by trimming and lower-casing', () => {
    expect(normalizeAddress('  Ana.Perez@Example.ORG ')).toBe('ana.perez@example.org');
  });

  it('masks all but the first character of the local part', () => {
    expect(maskAddress('ana@example.org')).toBe('a***@example.org');
    expect(maskAddress('Z@Example.org')).toBe('z***@example.org');
    expect(maskAddress('"odd@local"@example.org')).toBe('"***@example.org');
    expect(maskAddress('no-at-sign')).toBe('***');
  });

  it('reads recipients as providers write them, and refuses what is not an address', () => {
    expect(parseRecipient('Ana@Example.org')).toBe('ana@example.org');
    expect(parseRecipient('Ana Pérez <Ana@Example.org>')).toBe('ana@example.org');
    for (const bad of [42, null, '', 'not an address', 'a@b', `${'a'.repeat(250)}@example.org`, 'x\u0000@a.org']) {
      expect(parseRecipient(bad)).toBeNull();
    }
  });
});
