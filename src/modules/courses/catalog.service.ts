import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import {
  type CardRow,
  type CourseRow,
  CoursesRepository,
  type LessonRow,
  type OutlineRow,
  type QuizRow,
} from './courses.repository';
import type { CourseCardDto, EnrollmentDto } from './dto/course.dto';

/**
 * What the catalog needs to know about a learner, answered by the progress area (which depends on this service,
 * so this one cannot depend on it). Registered at start; until then nobody is enrolled (fail closed).
 */
export interface LearnerState {
  enrollment(organizationId: string, userId: string, courseId: string): Promise<EnrollmentDto | null>;
  enrolledCourseIds(organizationId: string, userId: string, courseIds: string[]): Promise<Set<string>>;
  completedLessonIds(organizationId: string, userId: string, courseId: string): Promise<Set<string>>;
}

const NOBODY_ENROLLED: LearnerState = {
  enrollment: async () => null,
  enrolledCourseIds: async () => new Set(),
  completedLessonIds: async () => new Set(),
};

/** A course as one organization's member may reach it. */
export interface ReachableCourse {
  course: CourseRow;
  /** In the organization's catalog now (published and offered to it). */
  visible: boolean;
  /** The caller's enrollment in this organization, or null. */
  enrollment: EnrollmentDto | null;
}

/**
 * The shared catalog as other areas read it (progress, search, teacher views, the editor's checks). They never
 * query catalog tables themselves.
 */
@Injectable()
export class CatalogService {
  private learners: LearnerState = NOBODY_ENROLLED;

  constructor(private readonly courses: CoursesRepository) {}

  useLearnerState(state: LearnerState): void {
    this.learners = state;
  }

  get learnerState(): LearnerState {
    return this.learners;
  }

  /** Any course by id or slug, whatever its status. */
  resolve(idOrSlug: string, tx?: Tx): Promise<CourseRow | null> {
    return this.courses.findByIdOrSlug(idOrSlug, tx);
  }

  isVisible(organizationId: string, courseId: string, tx?: Tx): Promise<boolean> {
    return this.courses.isVisible(organizationId, courseId, tx);
  }

  /**
   * The course when this member may reach it: in the organization's catalog, or, once no longer there
   * (unpublished, or no longer offered to the organization), still for the people already enrolled in it here.
   * Drafts and other organizations' restricted courses are null (404 for the caller).
   */
  async reachable(organizationId: string, userId: string, idOrSlug: string): Promise<ReachableCourse | null> {
    const course = await this.courses.findByIdOrSlug(idOrSlug);
    if (!course || course.status === 'draft') return null;
    const [visible, enrollment] = await Promise.all([
      this.courses.isVisible(organizationId, course.id),
      this.learners.enrollment(organizationId, userId, course.id),
    ]);
    if (!visible && !enrollment) return null;
    return { course, visible, enrollment };
  }

  outline(courseId: string, tx?: Tx): Promise<OutlineRow[]> {
    return this.courses.outline(courseId, tx);
  }

  lesson(courseId: string, lessonId: string, tx?: Tx): Promise<LessonRow | null> {
    return this.courses.lesson(courseId, lessonId, tx);
  }

  countLessons(courseId: string, tx?: Tx): Promise<number> {
    return this.courses.countLessons(courseId, tx);
  }

  /** The lesson's quiz with its answers, or null. */
  async quizOf(lessonId: string, tx?: Tx): Promise<QuizRow | null> {
    return (await this.courses.quizzes([lessonId], tx)).get(lessonId) ?? null;
  }

  quizzesOf(lessonIds: string[], tx?: Tx): Promise<Map<string, QuizRow>> {
    return this.courses.quizzes(lessonIds, tx);
  }

  /** Cards of these courses (whatever their status), by id. */
  async cards(courseIds: string[]): Promise<Map<string, CardRow>> {
    return new Map((await this.courses.cards(courseIds)).map((row) => [row.id, row]));
  }

  toCard(row: CardRow, enrolled: boolean): CourseCardDto {
    return {
      id: row.id,
      slug: row.slug,
      title: row.title,
      summary: row.summary,
      language: row.language,
      level: row.level,
      tags: row.tags,
      lessons_count: row.lessons_count,
      estimated_minutes: row.estimated_minutes,
      rating: { average: row.rating_average, count: row.rating_count },
      enrolled,
    };
  }
}
