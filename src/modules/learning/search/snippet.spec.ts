import { HIT_END, HIT_START, plainSnippet } from './snippet';

const hit = (word: string) => `${HIT_START}${word}${HIT_END}`;

describe('plainSnippet', () => {
  it('wraps the matched words in brackets', () => {
    expect(plainSnippet(`Aprende a ${hit('programar')} en Python`)).toBe('Aprende a [programar] en Python');
  });

  it("turns the text's own brackets into parentheses, so brackets only mark matches", () => {
    expect(plainSnippet(`array[0] and ${hit('run')} [sic]`)).toBe('array(0) and [run] (sic)');
  });

  it('removes markdown syntax and keeps the text of links and images', () => {
    expect(
      plainSnippet(
        `## Intro\n\n**Bold** and _italic_ \`code\` a [${hit('link')}](http://x.y/z) ![alt](i.png)\n> quote\n- item`,
      ),
    ).toBe('Intro Bold and italic code a [link] alt quote item');
    expect(plainSnippet('snake_case_name stays')).toBe('snake_case_name stays');
  });

  it('drops a link target cut by the excerpt', () => {
    expect(plainSnippet(`${hit('Python')}](https://example.org/a) rest`)).toBe('[Python] rest');
  });

  it('joins adjacent matches into one phrase and collapses whitespace', () => {
    expect(plainSnippet(`${hit('machine')}  ${hit('learning')}\n\nbasics`)).toBe('[machine learning] basics');
  });

  it('leaves angle brackets as text (the snippet is never HTML)', () => {
    expect(plainSnippet(`if a < b then ${hit('run')}`)).toBe('if a < b then [run]');
  });
});
