/**
 * What the editor area offers other areas: the rules a quiz question follows (option counts, correct options,
 * distinct texts), which the exams area applies to each question of an exam's pool, and their limits.
 */
export { QUESTION_KINDS, type QuestionKind, QUIZ_LIMITS, type QuizDraft, quizProblems } from './quiz-rules';
