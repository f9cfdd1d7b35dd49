/**
 * The progress area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { CompletionRequirements, type ExamRequirement } from './completion-requirements.port';
export { LessonScoreDto } from './dto/progress.dto';
export { gradeQuiz, type QuestionResult } from './learning-rules';
export { type LessonScore, LessonScores } from './lesson-scores.port';
export { lessonScoresDto, ProgressService } from './progress.service';
