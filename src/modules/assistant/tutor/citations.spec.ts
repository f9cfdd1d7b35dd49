import { CitationTracker, snippetOf } from './citations';

const passages = [1, 2, 3].map((index) => ({
  index,
  chunk_id: `c${index}`,
  lesson_id: `l${index}`,
  lesson_title: `Lesson ${index}`,
  lesson_position: index,
  text: `Passage **${index}**.`,
}));

describe('citations (extensions-v2 23.4)', () => {
  it('reports a passage when its marker first appears, also split across deltas; unknown markers are ignored', () => {
    const tracker = new CitationTracker(passages, (id) => `http://web.test/courses/c/lessons/${id}`);
    expect(tracker.feed('First [')).toEqual([]);
    expect(tracker.feed('2] then [9] and [1')).toEqual([expect.objectContaining({ index: 2 })]);
    expect(tracker.feed('] and [2] again [3]').map((c) => c.index)).toEqual([1, 3]);
    expect(tracker.all().map((c) => c.index)).toEqual([2, 1, 3]);
    expect(tracker.all()[0]).toEqual({
      index: 2,
      lesson_id: 'l2',
      lesson_title: 'Lesson 2',
      lesson_position: 2,
      chunk_id: 'c2',
      snippet: 'Passage 2.',
      url: 'http://web.test/courses/c/lessons/l2',
    });
  });

  it('snippets are plain text of at most 300 characters, cut at a word', () => {
    const long = `${'palabra '.repeat(60)}fin`;
    const s = snippetOf(long);
    expect(s.length).toBeLessThanOrEqual(300);
    expect(s.endsWith('palabra…')).toBe(true);
    expect(snippetOf('# Título\n\nTexto *breve*.')).toBe('Título. Texto breve.');
  });
});
