import { CHUNK_LIMITS, chunkId, chunkLesson, lessonChunks } from './lesson-chunks';

const sentence = (i: number, words = 12): string =>
  `${Array.from({ length: words }, (_, k) => `word${i}x${k}`).join(' ')}.`;
const paragraph = (i: number, sentences: number): string =>
  Array.from({ length: sentences }, (_, k) => sentence(i * 100 + k)).join(' ');

describe('chunkLesson (extensions-v2 23.2)', () => {
  it('nothing for an empty lesson or one of blank lines', () => {
    expect(chunkLesson('')).toEqual([]);
    expect(chunkLesson('\n\n  \n')).toEqual([]);
  });

  it('keeps a short lesson as one passage', () => {
    expect(chunkLesson('# Title\n\nA short paragraph.')).toEqual(['# Title\n\nA short paragraph.']);
  });

  it('merges paragraphs up to 1 200 characters and never beyond', () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => paragraph(i, 2));
    const chunks = chunkLesson(paragraphs.join('\n\n'));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(CHUNK_LIMITS.target);
    // Nothing lost, nothing repeated, in order.
    expect(chunks.join('\n\n')).toBe(paragraphs.join('\n\n'));
    // Every passage but the last has at least 300 characters.
    for (const c of chunks.slice(0, -1)) expect(c.length).toBeGreaterThanOrEqual(CHUNK_LIMITS.min);
  });

  it('starts a new passage at a heading once the current one has 300 characters', () => {
    const long = paragraph(1, 3); // > 300
    const chunks = chunkLesson(`## One\n\n${long}\n\n## Two\n\nShort text.`);
    expect(chunks).toEqual([`## One\n\n${long}`, '## Two\n\nShort text.']);
  });

  it('merges small sections across headings until they reach 300', () => {
    const chunks = chunkLesson('## A\n\nTiny.\n\n## B\n\nSmall too.');
    expect(chunks).toEqual(['## A\n\nTiny.\n\n## B\n\nSmall too.']);
  });

  it('never ends a passage with a heading: it moves on with the text it titles', () => {
    const a = 'a'.repeat(250);
    const b = `${'b'.repeat(1000)}.`;
    const chunks = chunkLesson(`${a}\n\n## Heading\n\n${b}`);
    expect(chunks).toEqual([a, `## Heading\n\n${b}`]);
  });

  it('cuts a long paragraph at sentence ends into pieces of at most 1 200', () => {
    const long = paragraph(7, 30);
    expect(long.length).toBeGreaterThan(3000);
    const chunks = chunkLesson(long);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(CHUNK_LIMITS.target);
      expect(c.endsWith('.')).toBe(true);
    }
    expect(chunks.join(' ')).toBe(long);
  });

  it('a single sentence above 1 200 stays whole up to 1 600, and is cut at words beyond', () => {
    const s1400 = `${'lorem ipsum '.repeat(116).trim()}.`;
    expect(s1400.length).toBeGreaterThan(1200);
    expect(s1400.length).toBeLessThanOrEqual(1600);
    expect(chunkLesson(s1400)).toEqual([s1400]);
    const s4000 = `${'dolor sit '.repeat(400).trim()}.`;
    const chunks = chunkLesson(s4000);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(CHUNK_LIMITS.max);
    expect(chunks.join(' ')).toBe(s4000);
  });

  it('keeps a fenced code block whole although it has blank lines', () => {
    const code = '```python\ndef f():\n\n    return 1\n```';
    expect(chunkLesson(`Intro.\n\n${code}\n\nOutro.`)).toEqual([`Intro.\n\n${code}\n\nOutro.`]);
  });

  it('reads Windows line ends', () => {
    expect(chunkLesson('One.\r\n\r\nTwo.')).toEqual(['One.\n\nTwo.']);
  });
});

describe('stable passage ids', () => {
  const lesson = '3f0e8c1a-58a4-4d3a-9a39-0e3b1f7f2c11';

  it('are UUIDs (version 8) derived from the lesson and the text', () => {
    const id = chunkId(lesson, 'text', 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(chunkId(lesson, 'text', 0)).toBe(id);
    expect(chunkId(lesson.toUpperCase(), 'text', 0)).toBe(id);
    expect(chunkId(lesson, 'other', 0)).not.toBe(id);
    expect(chunkId('11111111-1111-4111-8111-111111111111', 'text', 0)).not.toBe(id);
  });

  it('editing one paragraph keeps the ids of the others', () => {
    const parts = [paragraph(1, 7), paragraph(2, 7), paragraph(3, 7)]; // ~930 characters each: one passage each
    const before = lessonChunks(lesson, parts.join('\n\n'));
    const after = lessonChunks(lesson, [parts[0], `${parts[1]} Edited.`, parts[2]].join('\n\n'));
    expect(before).toHaveLength(3);
    expect(after.map((c) => c.id)).toEqual([before[0].id, expect.any(String), before[2].id]);
    expect(after[1].id).not.toBe(before[1].id);
    expect(after.map((c) => c.position)).toEqual([1, 2, 3]);
  });

  it('identical passages of one lesson get distinct ids', () => {
    const p = paragraph(9, 7);
    const chunks = lessonChunks(lesson, `${p}\n\n${p}`);
    expect(chunks).toHaveLength(2);
    expect(chunks[0].id).not.toBe(chunks[1].id);
  });
});
