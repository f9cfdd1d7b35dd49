import type { Language, Level } from './dto/course.dto';

/*
 * The catalog as other areas read it through `CatalogService`: courses, their outline, lessons and quizzes, in
 * the shape the database returns them (snake_case, as the repositories do).
 */

export type CourseStatus = 'draft' | 'published' | 'unpublished';
export type QuestionKind = 'single' | 'multiple' | 'true_false';

export interface CourseRow {
  id: string;
  slug: string;
  title: string;
  summary: string;
  description_md: string;
  language: Language;
  level: Level;
  tags: string[];
  visibility: 'public' | 'restricted';
  status: CourseStatus;
  issues_certificate: boolean;
  estimated_minutes: number;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A course with what its card shows. */
export interface CardRow extends CourseRow {
  lessons_count: number;
  rating_average: number | null;
  rating_count: number;
}

export interface OutlineRow {
  id: string;
  position: number;
  title: string;
  estimated_minutes: number;
  has_quiz: boolean;
}

export interface LessonRow extends OutlineRow {
  course_id: string;
  content_md: string;
}

export interface QuizOptionRow {
  id: string;
  position: number;
  text: string;
  correct: boolean;
}

export interface QuizQuestionRow {
  id: string;
  position: number;
  prompt: string;
  kind: QuestionKind;
  explanation: string | null;
  options: QuizOptionRow[];
}

/** A quiz with its answers (never sent to learners as is). */
export interface QuizRow {
  id: string;
  lesson_id: string;
  passing_score: number;
  questions: QuizQuestionRow[];
}
