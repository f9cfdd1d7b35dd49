import type { ErrorDetail } from '@/core/http/api-error';

/** What grading needs of a quiz: its questions and which options are correct. */
export interface GradableQuiz {
  passing_score: number;
  questions: {
    id: string;
    explanation: string | null;
    options: { id: string; correct: boolean }[];
  }[];
}

export interface Answer {
  question_id: string;
  option_ids: string[];
}

export interface QuestionResult {
  question_id: string;
  correct: boolean;
  correct_option_ids: string[];
  explanation: string | null;
}

export interface Grade {
  score: number;
  passed: boolean;
  results: QuestionResult[];
}

/**
 * Grades a submission. A question is right when the chosen options are exactly its correct options (a partly right
 * `multiple` answer is wrong; choosing twice the same option counts once); an unanswered question is wrong. The score
 * is the share of right questions as an integer percent (half rounds up), and the quiz is passed at
 * `score >= passing_score`. An answer to a question the quiz does not have, a second answer to the same question, or
 * an option of another question is refused: the details name each offending field.
 */
export function gradeQuiz(quiz: GradableQuiz, answers: Answer[]): { problems: ErrorDetail[] } | { grade: Grade } {
  const questions = new Map(quiz.questions.map((q) => [q.id.toLowerCase(), q]));
  const chosen = new Map<string, Set<string>>();
  const problems: ErrorDetail[] = [];
  answers.forEach((answer, i) => {
    const questionId = answer.question_id.toLowerCase();
    const question = questions.get(questionId);
    if (!question) {
      problems.push({ field: `answers.${i}.question_id`, message: 'question_id is not a question of this quiz' });
      return;
    }
    if (chosen.has(questionId)) {
      problems.push({ field: `answers.${i}.question_id`, message: 'question_id is answered more than once' });
      return;
    }
    const optionIds = new Set(question.options.map((o) => o.id.toLowerCase()));
    const picked = new Set(answer.option_ids.map((id) => id.toLowerCase()));
    if ([...picked].some((id) => !optionIds.has(id))) {
      problems.push({ field: `answers.${i}.option_ids`, message: 'option_ids must be options of that question' });
      return;
    }
    chosen.set(questionId, picked);
  });
  if (problems.length > 0) return { problems };

  const results = quiz.questions.map((question): QuestionResult => {
    const correctIds = question.options.filter((o) => o.correct).map((o) => o.id);
    const picked = chosen.get(question.id.toLowerCase());
    const correct =
      picked !== undefined &&
      picked.size === correctIds.length &&
      correctIds.every((id) => picked.has(id.toLowerCase()));
    return { question_id: question.id, correct, correct_option_ids: correctIds, explanation: question.explanation };
  });
  const right = results.filter((r) => r.correct).length;
  const score = percent(right, results.length);
  return { grade: { score, passed: score >= quiz.passing_score, results } };
}

/** `part` of `whole` as an integer percent, half rounding up; 0 of nothing is 0. */
export function percent(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.min(100, Math.round((part * 100) / whole));
}
