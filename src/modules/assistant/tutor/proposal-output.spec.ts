import { quizProblems } from '@/modules/learning/editor';
import { usableQuestions } from './proposal-output';

const CHUNK = 'a1111111-1111-8111-8111-111111111111';
const context = {
  kinds: ['single', 'true_false'] as const,
  count: 3,
  chunks: new Map([[CHUNK, 'La **lección** dice algo sobre variables.']]),
  problems: (q: Parameters<typeof quizProblems>[0]['questions'][number]) =>
    quizProblems({ passing_score: 0, questions: [q] }),
};
const good = {
  prompt: ' ¿Qué guarda una variable? ',
  kind: 'single',
  options: [
    { text: 'Un valor', correct: true },
    { text: 'Nada', correct: false },
  ],
  explanation: 'Porque sí.',
  source_chunk: CHUNK.toUpperCase(),
};

describe('usable questions of a provider answer (extensions-v2 23.6)', () => {
  it('keeps valid questions, trimmed, numbered, with their passage snippet', () => {
    expect(usableQuestions(JSON.stringify({ questions: [good] }), { ...context, kinds: [...context.kinds] })).toEqual([
      {
        index: 1,
        prompt: '¿Qué guarda una variable?',
        kind: 'single',
        options: good.options,
        explanation: 'Porque sí.',
        source: { chunk_id: CHUNK, snippet: 'La lección dice algo sobre variables.' },
        accepted_at: null,
      },
    ]);
  });

  it('drops questions breaking the quiz rules, of a kind not asked, without a passage of the lesson, or malformed', () => {
    const bad = [
      {
        ...good,
        options: [
          { text: 'A', correct: true },
          { text: 'B', correct: true },
        ],
      }, // two correct in single
      { ...good, kind: 'multiple' }, // not asked
      { ...good, source_chunk: 'b2222222-2222-8222-8222-222222222222' }, // another passage
      { ...good, options: 'A, B' },
      { ...good, prompt: '' },
      {
        ...good,
        options: [
          { text: 'A', correct: 'yes' },
          { text: 'B', correct: false },
        ],
      },
      'text',
      { ...good, prompt: 'Kept' },
    ];
    const kept = usableQuestions(JSON.stringify({ questions: bad }), { ...context, kinds: [...context.kinds] });
    expect(kept.map((q) => [q.index, q.prompt])).toEqual([[1, 'Kept']]);
  });

  it('accepts a bare array, keeps at most `count`, and gives nothing for non-JSON', () => {
    const many = Array.from({ length: 5 }, (_, i) => ({ ...good, prompt: `Q${i}` }));
    expect(usableQuestions(JSON.stringify(many), { ...context, kinds: [...context.kinds] })).toHaveLength(3);
    expect(usableQuestions('Sure! Here are your questions:', { ...context, kinds: [...context.kinds] })).toEqual([]);
    expect(usableQuestions('{"questions": 3}', { ...context, kinds: [...context.kinds] })).toEqual([]);
  });
});
