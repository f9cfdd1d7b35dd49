import { type QuizDraft, quizProblems } from './quiz-rules';

const option = (text: string, correct = false) => ({ text, correct });
const question = (kind: QuizDraft['questions'][number]['kind'], options: { text: string; correct: boolean }[]) => ({
  prompt: 'Question?',
  kind,
  options,
});
const quiz = (...questions: QuizDraft['questions']): QuizDraft => ({ passing_score: 50, questions });
const fields = (q: QuizDraft) => quizProblems(q).map((p) => p.field);

describe('quizProblems', () => {
  it('accepts well-formed single, multiple and true_false questions', () => {
    expect(
      quizProblems(
        quiz(
          question('single', [option('A', true), option('B')]),
          question('multiple', [option('A', true), option('B', true), option('C')]),
          question('multiple', [option('A', true), option('B')]),
          question('true_false', [option('True'), option('False', true)]),
        ),
      ),
    ).toEqual([]);
  });

  it('single needs exactly one correct option', () => {
    expect(fields(quiz(question('single', [option('A'), option('B')])))).toEqual(['quiz.questions.0.options']);
    expect(fields(quiz(question('single', [option('A', true), option('B', true)])))).toEqual([
      'quiz.questions.0.options',
    ]);
  });

  it('multiple needs at least one correct option', () => {
    expect(fields(quiz(question('multiple', [option('A'), option('B')])))).toEqual(['quiz.questions.0.options']);
  });

  it('true_false needs exactly two options and exactly one correct', () => {
    expect(fields(quiz(question('true_false', [option('T', true), option('F'), option('?')])))).toEqual([
      'quiz.questions.0.options',
    ]);
    expect(fields(quiz(question('true_false', [option('T', true), option('F', true)])))).toEqual([
      'quiz.questions.0.options',
    ]);
    expect(fields(quiz(question('true_false', [option('T', true)])))).toEqual(['quiz.questions.0.options']);
  });

  it('2..10 options: 10 ok, 11 and 1 refused', () => {
    const opts = (n: number) => Array.from({ length: n }, (_, i) => option(`O${i}`, i === 0));
    expect(quizProblems(quiz(question('single', opts(10))))).toEqual([]);
    expect(quizProblems(quiz(question('single', opts(2))))).toEqual([]);
    expect(fields(quiz(question('single', opts(11))))).toEqual(['quiz.questions.0.options']);
    expect(fields(quiz(question('single', opts(1))))).toEqual(['quiz.questions.0.options']);
  });

  it('1..50 questions: 50 ok, 51 and 0 refused', () => {
    const q = question('single', [option('A', true), option('B')]);
    expect(quizProblems(quiz(...Array.from({ length: 50 }, () => q)))).toEqual([]);
    expect(fields(quiz(...Array.from({ length: 51 }, () => q)))).toEqual(['quiz.questions']);
    expect(fields(quiz())).toEqual(['quiz.questions']);
  });

  it('options of a question must differ (trimmed, case-insensitive)', () => {
    expect(fields(quiz(question('single', [option('Yes', true), option(' yes ')])))).toEqual([
      'quiz.questions.0.options',
    ]);
  });

  it('names the offending question by index and uses the given field prefix', () => {
    const ok = question('single', [option('A', true), option('B')]);
    const bad = question('multiple', [option('A'), option('B')]);
    expect(quizProblems(quiz(ok, bad, ok), 'x').map((p) => p.field)).toEqual(['x.questions.1.options']);
  });
});
