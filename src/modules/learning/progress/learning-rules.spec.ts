import { type GradableQuiz, gradeQuiz, percent } from './learning-rules';

const quiz: GradableQuiz = {
  passing_score: 70,
  questions: [
    {
      id: 'q-single',
      explanation: 'Paris is the capital.',
      options: [
        { id: 's-a', correct: true },
        { id: 's-b', correct: false },
        { id: 's-c', correct: false },
      ],
    },
    {
      id: 'q-multiple',
      explanation: null,
      options: [
        { id: 'm-a', correct: true },
        { id: 'm-b', correct: true },
        { id: 'm-c', correct: false },
      ],
    },
    {
      id: 'q-tf',
      explanation: 'It is false.',
      options: [
        { id: 't-true', correct: false },
        { id: 't-false', correct: true },
      ],
    },
  ],
};

function grade(answers: { question_id: string; option_ids: string[] }[], q = quiz) {
  const out = gradeQuiz(q, answers);
  if ('problems' in out) throw new Error(JSON.stringify(out.problems));
  return out.grade;
}

describe('gradeQuiz', () => {
  it('all right: 100, passed, with correct options and explanations revealed', () => {
    const g = grade([
      { question_id: 'q-single', option_ids: ['s-a'] },
      { question_id: 'q-multiple', option_ids: ['m-b', 'm-a'] },
      { question_id: 'q-tf', option_ids: ['t-false'] },
    ]);
    expect(g).toEqual({
      score: 100,
      passed: true,
      results: [
        { question_id: 'q-single', correct: true, correct_option_ids: ['s-a'], explanation: 'Paris is the capital.' },
        { question_id: 'q-multiple', correct: true, correct_option_ids: ['m-a', 'm-b'], explanation: null },
        { question_id: 'q-tf', correct: true, correct_option_ids: ['t-false'], explanation: 'It is false.' },
      ],
    });
  });

  it('a partly right multiple answer is wrong, and so is one with an extra option', () => {
    expect(grade([{ question_id: 'q-multiple', option_ids: ['m-a'] }]).results[1].correct).toBe(false);
    expect(grade([{ question_id: 'q-multiple', option_ids: ['m-a', 'm-b', 'm-c'] }]).results[1].correct).toBe(false);
  });

  it('single and true/false: the one correct option only; two picks are wrong', () => {
    expect(grade([{ question_id: 'q-single', option_ids: ['s-a', 's-b'] }]).results[0].correct).toBe(false);
    expect(grade([{ question_id: 'q-single', option_ids: ['s-b'] }]).results[0].correct).toBe(false);
    expect(grade([{ question_id: 'q-tf', option_ids: ['t-true'] }]).results[2].correct).toBe(false);
    expect(grade([{ question_id: 'q-tf', option_ids: ['t-false'] }]).results[2].correct).toBe(true);
  });

  it('unanswered questions and empty picks count wrong', () => {
    const g = grade([{ question_id: 'q-single', option_ids: [] }]);
    expect(g.results.map((r) => r.correct)).toEqual([false, false, false]);
    expect([g.score, g.passed]).toEqual([0, false]);
    expect(grade([]).score).toBe(0);
  });

  it('the same option twice counts once; ids compare case-insensitively', () => {
    const g = grade([
      { question_id: 'Q-SINGLE', option_ids: ['S-A', 's-a'] },
      { question_id: 'q-multiple', option_ids: ['m-a', 'M-B', 'm-a'] },
    ]);
    expect(g.results.map((r) => r.correct)).toEqual([true, true, false]);
  });

  it('score rounds to an integer percent (2 of 3 = 67) and passes at exactly the passing score', () => {
    const two = grade([
      { question_id: 'q-single', option_ids: ['s-a'] },
      { question_id: 'q-tf', option_ids: ['t-false'] },
    ]);
    expect([two.score, two.passed]).toEqual([67, false]);
    expect(grade([{ question_id: 'q-single', option_ids: ['s-a'] }], { ...quiz, passing_score: 33 })).toMatchObject({
      score: 33,
      passed: true,
    });
    expect(grade([{ question_id: 'q-single', option_ids: ['s-a'] }], { ...quiz, passing_score: 34 }).passed).toBe(
      false,
    );
    expect(grade([], { ...quiz, passing_score: 0 }).passed).toBe(true);
  });

  it('refuses unknown questions, repeated questions and options of another question, naming the fields', () => {
    const out = gradeQuiz(quiz, [
      { question_id: 'q-single', option_ids: ['s-a'] },
      { question_id: 'nope', option_ids: [] },
      { question_id: 'q-single', option_ids: ['s-b'] },
      { question_id: 'q-tf', option_ids: ['s-a'] },
    ]);
    expect(out).toEqual({
      problems: [
        { field: 'answers.1.question_id', message: expect.any(String) },
        { field: 'answers.2.question_id', message: expect.any(String) },
        { field: 'answers.3.option_ids', message: expect.any(String) },
      ],
    });
  });
});

describe('percent', () => {
  it.each([
    [0, 0, 0],
    [0, 5, 0],
    [1, 3, 33],
    [2, 3, 67],
    [1, 2, 50],
    [1, 8, 13], // 12.5 rounds up
    [5, 5, 100],
    [6, 5, 100],
  ])('%i of %i is %i', (part, whole, expected) => {
    expect(percent(part, whole)).toBe(expected);
  });
});
