/**
 * The editor area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { CreateCourseDto, EditorLessonDto, QuizInputDto } from './dto/editor.dto';
export { QuestionDto, QuestionInputDto } from './dto/question.dto';
export { EditorService } from './editor.service';
export { QUESTION_KINDS, type QuestionKind, QUIZ_LIMITS, quizProblems } from './quiz-rules';
export { SeoService } from './seo/seo.service';
