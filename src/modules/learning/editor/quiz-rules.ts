import type { ErrorDetail } from '@/core/http/api-error';

/** The kinds of question a quiz or an exam holds (`single`: one correct option; `multiple`: at least one;
 * `true_false`: two options, one correct). */
export const QUESTION_KINDS = ['single', 'multiple', 'true_false'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

export const QUIZ_LIMITS = { minQuestions: 1, maxQuestions: 50, minOptions: 2, maxOptions: 10 } as const;

export interface QuizDraft {
  passing_score: number;
  questions: {
    prompt: string;
    kind: QuestionKind;
    options: { text: string; correct: boolean }[];
    explanation?: string | null;
  }[];
}

/**
 * The rules a quiz must follow beyond field shapes: 1..50 questions; 2..10 options per question, exactly 2 for
 * `true_false`; exactly one correct option for `single` and `true_false`, at least one for `multiple`; no two options
 * of a question with the same text (compared trimmed and case-insensitively). Each broken rule is one detail naming
 * the field (`quiz.questions.3.options`).
 */
export function quizProblems(quiz: QuizDraft, field = 'quiz'): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const { minQuestions, maxQuestions, minOptions, maxOptions } = QUIZ_LIMITS;
  if (quiz.questions.length < minQuestions || quiz.questions.length > maxQuestions) {
    problems.push({
      field: `${field}.questions`,
      message: `a quiz has between ${minQuestions} and ${maxQuestions} questions`,
    });
  }
  quiz.questions.forEach((question, i) => {
    const at = `${field}.questions.${i}.options`;
    const n = question.options.length;
    const correct = question.options.filter((o) => o.correct).length;
    if (question.kind === 'true_false') {
      if (n !== 2) problems.push({ field: at, message: 'a true_false question has exactly 2 options' });
    } else if (n < minOptions || n > maxOptions) {
      problems.push({ field: at, message: `a question has between ${minOptions} and ${maxOptions} options` });
    }
    if (question.kind === 'multiple') {
      if (correct < 1) problems.push({ field: at, message: 'a multiple question has at least one correct option' });
    } else if (correct !== 1) {
      problems.push({ field: at, message: `a ${question.kind} question has exactly one correct option` });
    }
    const texts = question.options.map((o) => o.text.trim().toLowerCase());
    if (new Set(texts).size !== texts.length) {
      problems.push({ field: at, message: 'the options of a question must differ' });
    }
  });
  return problems;
}
