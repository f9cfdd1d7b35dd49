import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import { CoursesRepository } from './courses.repository';
import type { CardRow, CourseRow, LessonRow, OutlineRow, QuizRow } from './courses.types';
import type { CourseCardDto, EnrollmentDto } from './dto/course.dto';

/** A course as one organization's member may reach it (`E`: the member's enrollment as the caller reads it). */
export interface ReachableCourse<E = EnrollmentDto> {
  course: CourseRow;
  /** In the organization's catalog now (published and offered to it). */
  visible: boolean;
  /** The caller's enrollment in this organization, or null. */
  enrollment: E | null;
}

/**
 * The shared catalog as other areas read it (progress, search, teacher views, the editor's checks). They never
 * query catalog tables themselves.
 */
@Injectable()
export class CatalogService {
  constructor(private readonly courses: CoursesRepository) {}

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
   * Drafts and other organizations' restricted courses are null (404 for the caller). `enrollmentOf` answers the
   * member's enrollment in a course (the progress area's, which calls this; the course pages ask it through
   * `LearnerState`).
   */
  async reachable<E = EnrollmentDto>(
    organizationId: string,
    idOrSlug: string,
    enrollmentOf: (courseId: string) => Promise<E | null>,
  ): Promise<ReachableCourse<E> | null> {
    const course = await this.courses.findByIdOrSlug(idOrSlug);
    if (!course || course.status === 'draft') return null;
    const [visible, enrollment] = await Promise.all([
      this.courses.isVisible(organizationId, course.id),
      enrollmentOf(course.id),
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

  /** A course by id with one of its lessons (whether it has a quiz), in one read; null when the lesson is not its. */
  courseLesson(courseId: string, lessonId: string): Promise<{ course: CourseRow; hasQuiz: boolean } | null> {
    return this.courses.courseLesson(courseId, lessonId);
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
