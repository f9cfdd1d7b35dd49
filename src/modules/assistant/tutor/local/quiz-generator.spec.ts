import { quizProblems } from '@/modules/learning/editor';
import { parseQuizMessages, quizMessages } from '@/modules/assistant/tutor/prompts/quiz-prompt';
import { generateQuiz } from './quiz-generator';

const LESSON = '7b1c2f10-3d1e-4c55-9a0e-0f6a5b0c9d21';
const CHUNKS = [
  {
    id: 'a1111111-1111-8111-8111-111111111111',
    text:
      '## Variables\n\nUna variable guarda un valor en memoria para usarlo después. ' +
      'El nombre de una variable debe describir el valor que guarda. ' +
      'Una función recibe parámetros y devuelve un valor calculado. ' +
      'Los parámetros de una función son variables locales de la función.',
  },
  {
    id: 'b2222222-2222-8222-8222-222222222222',
    text:
      'Un bucle repite instrucciones mientras se cumple una condición. ' +
      'La condición del bucle se evalúa antes de cada vuelta. ' +
      'Una lista guarda varios valores en orden y cada valor tiene un índice.',
  },
];

const prompt = (overrides: Partial<Parameters<typeof quizMessages>[0]> = {}) =>
  parseQuizMessages(
    quizMessages({
      lessonId: LESSON,
      lessonTitle: 'Variables y funciones',
      courseTitle: 'Python',
      courseLanguage: 'es',
      count: 5,
      kinds: ['single', 'multiple', 'true_false'],
      chunks: CHUNKS,
      ...overrides,
    }),
  )!;

describe('local quiz generator (extensions-v2 23.6)', () => {
  it('parses its prompt back', () => {
    const p = prompt();
    expect(p).toMatchObject({
      lessonId: LESSON,
      courseLanguage: 'es',
      count: 5,
      kinds: ['single', 'multiple', 'true_false'],
    });
    expect(p.chunks.map((c) => c.id)).toEqual(CHUNKS.map((c) => c.id));
    expect(p.chunks[0].text).toBe(CHUNKS[0].text);
  });

  it('writes valid single and true_false questions resting on passages of the lesson', () => {
    const questions = generateQuiz(prompt());
    expect(questions.length).toBe(5);
    expect(new Set(questions.map((q) => q.kind))).toEqual(new Set(['single', 'true_false']));
    const ids = new Set(CHUNKS.map((c) => c.id));
    for (const q of questions) {
      expect(ids.has(q.source_chunk)).toBe(true);
      expect(quizProblems({ passing_score: 70, questions: [q] })).toEqual([]);
      expect(q.explanation).toMatch(/^La lección dice: «.+»$/);
      if (q.kind === 'single') {
        expect(q.prompt).toMatch(/^Completa la frase: .*_____/);
        expect(q.options).toHaveLength(4);
        const answer = q.options.find((o) => o.correct)!.text;
        // The blank stands for the correct term: putting it back gives the quoted sentence.
        expect(q.explanation).toContain(
          q.prompt.replace('Completa la frase: ', '').replace('_____', answer).slice(0, 10),
        );
      } else {
        expect(q.options.map((o) => o.text)).toEqual(['Verdadero', 'Falso']);
        const quoted = q.explanation.slice('La lección dice: «'.length, -1);
        const statement = q.prompt.replace('¿Verdadero o falso? ', '');
        expect(q.options[0].correct).toBe(statement === quoted);
      }
    }
  });

  it('is deterministic for a lesson, and another lesson id draws differently', () => {
    expect(generateQuiz(prompt())).toEqual(generateQuiz(prompt()));
    const other = generateQuiz(prompt({ lessonId: '00000000-0000-4000-8000-000000000001' }));
    expect(other).not.toEqual(generateQuiz(prompt()));
  });

  it('honours the kinds and the count asked for', () => {
    expect(generateQuiz(prompt({ kinds: ['true_false'], count: 3 })).map((q) => q.kind)).toEqual([
      'true_false',
      'true_false',
      'true_false',
    ]);
    expect(generateQuiz(prompt({ kinds: ['single'], count: 2 })).map((q) => q.kind)).toEqual(['single', 'single']);
    // `multiple` is not written locally.
    expect(generateQuiz(prompt({ kinds: ['multiple'] }))).toEqual([]);
  });

  it('nothing from a lesson without repeated key terms', () => {
    expect(generateQuiz(prompt({ chunks: [{ id: CHUNKS[0].id, text: 'Hola mundo. Adiós.' }] }))).toEqual([]);
  });
});
