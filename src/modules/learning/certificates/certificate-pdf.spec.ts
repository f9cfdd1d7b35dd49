import { formatDay, toWinAnsi } from './certificate-pdf';

describe('certificate PDF text', () => {
  it('keeps what the standard fonts can show (Latin-1 and the WinAnsi extras)', () => {
    expect(toWinAnsi('María José Núñez — “Ñandú” €5 Œuvre')).toBe('María José Núñez — “Ñandú” €5 Œuvre');
  });

  it('strips accents the fonts lack, maps Latin letters without a decomposition, and marks the rest', () => {
    expect(toWinAnsi('Ștefan Dvořák')).toBe('Stefan Dvorák');
    expect(toWinAnsi('Łukasz Żółć')).toBe('Lukasz Zólc');
    expect(toWinAnsi('Đorđe')).toBe('Dorde');
    expect(toWinAnsi('王小明')).toBe('???');
    expect(toWinAnsi('a\u0007b')).toBe('a?b');
  });

  it('writes the issue date in the language of the certificate, in UTC', () => {
    const d = new Date('2026-03-15T23:30:00Z');
    expect(formatDay(d, 'es')).toBe('15 de marzo de 2026');
    expect(formatDay(d, 'en')).toBe('March 15, 2026');
  });
});
