/**
 * The courses area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { catalogConditions, configOf, textQuery, visibleTo } from './catalog-sql';
export { CatalogService, type ReachableCourse } from './catalog.service';
export type { CourseRow, LessonRow, QuestionKind } from './courses.types';
export {
  CatalogQueryDto,
  CourseCardDto,
  EnrollmentDto,
  type Language,
  LANGUAGES,
  type Level,
  LEVELS,
} from './dto/course.dto';
export { type EnrollmentRecord, LearnerState } from './learner-state.port';
export { LessonPassagesService } from './lesson-passages.service';
