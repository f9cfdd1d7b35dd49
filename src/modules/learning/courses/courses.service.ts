import { Injectable } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { type Page, toPage } from '@/core/http/pagination';
import { CatalogService, type ReachableCourse } from './catalog.service';
import { type EnrollmentRecord, LearnerState } from './learner-state.port';
import { CoursesRepository } from './courses.repository';
import { LtiToolsService } from '@/modules/integrations/lti';
import type {
  CatalogQueryDto,
  CourseCardDto,
  CourseDetailDto,
  LessonDto,
  RateCourseDto,
  RatingDto,
} from './dto/course.dto';

const notEnrolled = (): ApiError => ApiError.forbidden('Enroll in the course first.', 'not_enrolled');

/** The catalog an organization's members browse: cards, course pages, lessons and ratings. */
@Injectable()
export class CoursesService {
  constructor(
    private readonly courses: CoursesRepository,
    private readonly catalog: CatalogService,
    private readonly learners: LearnerState,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly events: DomainEvents,
    private readonly lti: LtiToolsService,
  ) {}

  async list(member: Membership, query: CatalogQueryDto): Promise<Page<CourseCardDto>> {
    const { rows, total } = await this.courses.catalogPage(
      member.organizationId,
      { q: query.q, language: query.language, level: query.level, tag: query.tag },
      query,
    );
    const enrolled = await this.learners.enrolledCourseIds(
      member.organizationId,
      member.userId,
      rows.map((r) => r.id),
    );
    return toPage(
      rows.map((row) => this.catalog.toCard(row, enrolled.has(row.id))),
      total,
      query,
    );
  }

  async detail(member: Membership, idOrSlug: string): Promise<CourseDetailDto> {
    const { course, visible, enrollment } = await this.reach(member, idOrSlug);
    // The enrollment's lesson counts come from the outline and the completions this page reads anyway.
    const [cards, outline, completed, exams] = await Promise.all([
      this.catalog.cards([course.id]),
      this.catalog.outline(course.id),
      enrollment
        ? this.learners.completedLessonIds(member.organizationId, member.userId, course.id)
        : Promise.resolve(new Set<string>()),
      enrollment ? this.learners.examRequirement(member.organizationId, member.userId, course.id) : null,
    ]);
    const card = cards.get(course.id);
    if (!card) throw ApiError.notFound();
    const progress =
      enrollment &&
      exams &&
      this.learners.presentEnrollment(
        enrollment,
        outline.reduce((n, l) => (completed.has(l.id) ? n + 1 : n), 0),
        outline.length,
        exams,
      );
    return {
      ...this.catalog.toCard(card, enrollment !== null),
      description_md: course.description_md,
      issues_certificate: course.issues_certificate,
      published_at: course.published_at?.toISOString() ?? null,
      available: visible,
      lessons: outline.map((l) => ({
        id: l.id,
        position: l.position,
        title: l.title,
        estimated_minutes: l.estimated_minutes,
        has_quiz: l.has_quiz,
        completed: completed.has(l.id),
      })),
      progress,
    };
  }

  /** Lesson content is for enrolled members (403 `not_enrolled`); the quiz comes without its answers. */
  async lesson(member: Membership, idOrSlug: string, lessonId: string): Promise<LessonDto> {
    const { course, enrollment } = await this.reach(member, idOrSlug);
    if (!isUuid(lessonId)) throw ApiError.notFound();
    const lesson = await this.catalog.lesson(course.id, lessonId.toLowerCase());
    if (!lesson) throw ApiError.notFound();
    if (!enrollment) throw notEnrolled();
    const [outline, quiz, completed, links] = await Promise.all([
      this.catalog.outline(course.id),
      lesson.has_quiz ? this.catalog.quizOf(lesson.id) : Promise.resolve(null),
      this.learners.completedLessonIds(member.organizationId, member.userId, course.id),
      this.lti.learnerLinks(member.organizationId, course.id, [lesson.id]),
    ]);
    const index = outline.findIndex((l) => l.id === lesson.id);
    return {
      id: lesson.id,
      course_id: course.id,
      position: lesson.position,
      title: lesson.title,
      content_md: lesson.content_md,
      estimated_minutes: lesson.estimated_minutes,
      completed: completed.has(lesson.id),
      quiz: quiz && {
        passing_score: quiz.passing_score,
        questions: quiz.questions.map((q) => ({
          id: q.id,
          position: q.position,
          prompt: q.prompt,
          kind: q.kind,
          options: q.options.map((o) => ({ id: o.id, position: o.position, text: o.text })),
        })),
      },
      lti: links.get(lesson.id) ?? null,
      previous_lesson_id: outline[index - 1]?.id ?? null,
      next_lesson_id: outline[index + 1]?.id ?? null,
    };
  }

  /** Enrolled members rate a course once (a repeat replaces the rating). */
  async rate(member: Membership, idOrSlug: string, dto: RateCourseDto): Promise<RatingDto> {
    const { course, enrollment } = await this.reach(member, idOrSlug);
    if (!enrollment) throw notEnrolled();
    const { organizationId, userId } = member;
    const row = await this.transactions.run(async (tx) => {
      const { rating, changed } = await this.courses.upsertRating(
        organizationId,
        userId,
        course.id,
        dto.stars,
        dto.comment?.trim() || null,
        this.clock.now(),
        tx,
      );
      // An identical repeat is no new fact.
      if (changed) {
        await this.events.publish(
          tx,
          'course.rated',
          { user_id: userId, course_id: course.id, stars: rating.stars },
          { organizationId, actorId: userId },
        );
      }
      return rating;
    });
    return {
      course_id: row.course_id,
      stars: row.stars,
      comment: row.comment,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }

  /** The course as the member may reach it, with their enrollment's row (no lesson counts: the pages count them). */
  private async reach(member: Membership, idOrSlug: string): Promise<ReachableCourse<EnrollmentRecord>> {
    const reachable = await this.catalog.reachable(member.organizationId, idOrSlug, (courseId) =>
      this.learners.enrollmentRecord(member.organizationId, member.userId, courseId),
    );
    if (!reachable) throw ApiError.notFound();
    return reachable;
  }
}
