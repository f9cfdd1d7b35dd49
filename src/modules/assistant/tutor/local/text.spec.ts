import { distinctWords, fold, sentences, stripMarkdown } from './text';

describe('local text helpers', () => {
  it('strips Markdown to prose', () => {
    const md = [
      '## Listas y *tuplas*',
      '',
      'Una **lista** es `mutable`; ver [la guía](https://example.org/g) o ![img](x.png).',
      '> Cita _importante_.',
      '- punto uno',
      '1. punto dos',
      '```',
      'code()',
      '```',
    ].join('\n');
    expect(stripMarkdown(md)).toBe(
      'Listas y tuplas.\n\nUna lista es mutable; ver la guía o img.\nCita importante.\npunto uno\npunto dos\n\ncode()',
    );
  });

  it('keeps a heading that ends in punctuation as it is', () => {
    expect(stripMarkdown('# ¿Qué es Python?')).toBe('¿Qué es Python?');
  });

  it('cuts sentences after . ! ? … and at blank lines', () => {
    expect(sentences('Uno. ¿Dos? ¡Tres! Cuatro… "Cinco." Seis\n\nSiete')).toEqual([
      'Uno.',
      '¿Dos?',
      '¡Tres!',
      'Cuatro…',
      '"Cinco."',
      'Seis',
      'Siete',
    ]);
    expect(sentences('3.14 is pi. Done.')).toEqual(['3.14 is pi.', 'Done.']);
  });

  it('folds case and accents, and keeps words of 3 letters or more', () => {
    expect(fold('Programación ÑANDÚ')).toBe('programacion nandu');
    expect([...distinctWords('¿Qué es una función en Python? Función, sí.')]).toEqual([
      'que',
      'una',
      'funcion',
      'python',
    ]);
  });
});
