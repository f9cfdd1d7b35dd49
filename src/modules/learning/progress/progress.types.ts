/**
 * What the progress area offers other areas: the built grading rule of quizzes (a question is right when the chosen
 * options are exactly the correct ones; unanswered is wrong; integer percent, half up; passed at the passing score),
 * which exams grade with too, so a lesson quiz and an exam never score the same answers differently.
 */
export { type Answer, type GradableQuiz, type Grade, gradeQuiz, percent, type QuestionResult } from './learning-rules';
