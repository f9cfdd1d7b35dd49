import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { isUuid } from '@/core/http/uuid';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { isForeignKeyViolation } from '@/core/database/constraint-violation';
import { CertificatesService } from '@/modules/learning/certificates';
import {
  CatalogService,
  type CourseRow,
  type LessonRow,
  type EnrollmentDto,
  type EnrollmentRecord,
  LearnerState,
} from '@/modules/learning/courses';
import type { LessonScoreDto, MyProgressDto, QuizResultDto, QuizSubmissionInputDto } from './dto/progress.dto';
import { gradeQuiz, percent } from './learning-rules';
import { CompletionRequirements, type ExamRequirement, NO_EXAM_REQUIREMENT } from './completion-requirements.port';
import { type LessonScore, LessonScores } from './lesson-scores.port';
import { type CompletionCounts, type EnrollmentRow, ProgressRepository } from './progress.repository';

/** One person's progress in one course of an organization (teacher views, programs, reports). */
export interface CourseProgress {
  user_id: string;
  course_id: string;
  percent: number;
  completed: boolean;
  last_activity_at: Date;
}

const notEnrolled = (): ApiError => ApiError.forbidden('Enroll in the course first.', 'not_enrolled');

/**
 * Enrollment and completion. Other areas (programs, teacher views) use this exported service; they never query
 * learning tables themselves.
 */
@Injectable()
export class ProgressService implements LearnerState {
  constructor(
    private readonly progress: ProgressRepository,
    private readonly catalog: CatalogService,
    private readonly certificates: CertificatesService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly events: DomainEvents,
    // Answered by the exams area (extensions-v2 9.8); without it no course requires an exam.
    @Optional() @Inject(CompletionRequirements) private readonly requirements: CompletionRequirements | null,
    // Answered by the LTI area (extensions-v3 1.6); without it no lesson has a score.
    @Optional() @Inject(LessonScores) private readonly scores: LessonScores | null,
  ) {}

  /** The courses this person has completed in this organization. */
  async completedCourseIds(organizationId: string, userId: string): Promise<Set<string>> {
    return new Set(await this.progress.completedCourseIds(organizationId, userId));
  }

  /** Per person and course: percent of lessons completed, whether the course is completed, last activity. */
  async progressOf(organizationId: string, userIds: string[], courseIds?: string[]): Promise<CourseProgress[]> {
    const rows = await this.progress.progressOf(organizationId, userIds, courseIds);
    return rows.map((row) => ({
      user_id: row.user_id,
      course_id: row.course_id,
      percent: percent(row.completed_lessons, row.total_lessons),
      completed: row.status === 'completed',
      last_activity_at: row.last_activity_at,
    }));
  }

  /** Per course: the lessons an external tool scored for this person here (0..100), in course order. */
  async lessonScores(
    organizationId: string,
    userId: string,
    courseIds: readonly string[],
  ): Promise<ReadonlyMap<string, readonly LessonScore[]>> {
    if (!this.scores || courseIds.length === 0) return new Map();
    return this.scores.scoresOf(organizationId, userId, courseIds);
  }

  /** Whether anyone in any organization is enrolled in the course (the editor refuses to delete it then). */
  hasEnrollments(courseId: string, tx?: Tx): Promise<boolean> {
    return this.progress.anyEnrollment(courseId, tx);
  }

  // LearnerState: what the catalog shows about the caller.

  async enrollment(organizationId: string, userId: string, courseId: string): Promise<EnrollmentDto | null> {
    const row = await this.progress.find(organizationId, userId, courseId);
    return row && toDto(row, await this.examsOf(organizationId, userId, row.course_id));
  }

  enrollmentRecord(organizationId: string, userId: string, courseId: string): Promise<EnrollmentRecord | null> {
    return this.progress.record(organizationId, userId, courseId);
  }

  examRequirement(organizationId: string, userId: string, courseId: string): Promise<ExamRequirement> {
    return this.examsOf(organizationId, userId, courseId);
  }

  presentEnrollment(
    record: EnrollmentRecord,
    completedLessons: number,
    totalLessons: number,
    exams: ExamRequirement,
  ): EnrollmentDto {
    return toDto({ ...record, completed_lessons: completedLessons, total_lessons: totalLessons }, exams);
  }

  async enrolledCourseIds(organizationId: string, userId: string, courseIds: string[]): Promise<Set<string>> {
    return new Set(await this.progress.enrolledCourseIds(organizationId, userId, courseIds));
  }

  async completedLessonIds(organizationId: string, userId: string, courseId: string): Promise<Set<string>> {
    return new Set(await this.progress.completedLessonIds(organizationId, userId, courseId));
  }

  // The progress API.

  /**
   * Enrolls the caller in a course of the organization's catalog. Idempotent: a repeat (also a concurrent one)
   * answers the existing enrollment with `created: false`, even once the course has left the catalog.
   */
  async enroll(member: Membership, idOrSlug: string): Promise<{ enrollment: EnrollmentDto; created: boolean }> {
    const { organizationId, userId } = member;
    const course = await this.catalog.resolve(idOrSlug);
    if (!course || course.status === 'draft') throw ApiError.notFound();
    const existing = await this.progress.find(organizationId, userId, course.id);
    if (existing) {
      return { enrollment: toDto(existing, await this.examsOf(organizationId, userId, course.id)), created: false };
    }
    if (!(await this.catalog.isVisible(organizationId, course.id))) throw ApiError.notFound();
    const now = this.clock.now();
    const created = await this.transactions
      .run(async (tx) => {
        const inserted = await this.progress.insert(organizationId, userId, course.id, now, tx);
        if (inserted) {
          await this.events.publish(
            tx,
            'enrollment.created',
            { user_id: userId, course_id: course.id, enrolled_at: now.toISOString() },
            { organizationId, actorId: userId, occurredAt: now },
          );
        }
        return inserted;
      })
      .catch((err: unknown) => {
        // The course was deleted, or the membership removed, in between.
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    const row = await this.progress.find(organizationId, userId, course.id);
    if (!row) throw ApiError.notFound();
    return { enrollment: toDto(row, await this.examsOf(organizationId, userId, course.id)), created };
  }

  /**
   * Completes a lesson (idempotent). A lesson with a quiz needs a passed submission first (409 `quiz_not_passed`).
   * When every lesson is completed the course is, and a course that issues certificates issues one in the same
   * transaction. The enrollment is locked meanwhile, so concurrent completions complete the course, and issue its
   * certificate, once.
   */
  async completeLesson(member: Membership, idOrSlug: string, lessonId: string): Promise<EnrollmentDto> {
    const { organizationId, userId } = member;
    const { course, lesson } = await this.enrolledLesson(member, idOrSlug, lessonId);
    await this.complete(member, course, lesson.id, lesson.has_quiz);
    const row = await this.progress.find(organizationId, userId, course.id);
    if (!row) throw notEnrolled();
    return toDto(row, await this.examsOf(organizationId, userId, course.id));
  }

  /**
   * `completeLesson` for a caller that has found the member enrolled in the course already (an LTI score on the
   * lesson's line item), with the same effects, lock and errors once past its checks, and no answer: the course and
   * the lesson are read in one statement (404 when the course is a draft or the lesson not in it; no catalog
   * visibility check, which only matters to people not enrolled), and the enrollment is not read back.
   */
  async completeEnrolledLesson(member: Membership, courseId: string, lessonId: string): Promise<void> {
    const found = isUuid(courseId) && isUuid(lessonId) ? await this.catalog.courseLesson(courseId, lessonId) : null;
    if (!found || found.course.status === 'draft') throw ApiError.notFound();
    await this.complete(member, found.course, lessonId.toLowerCase(), found.hasQuiz);
  }

  /** The completion's transaction (completeLesson). */
  private async complete(member: Membership, course: CourseRow, lessonId: string, hasQuiz: boolean): Promise<void> {
    const { organizationId, userId } = member;
    const now = this.clock.now();
    await this.transactions
      .run(async (tx) => {
        const enrollment = await this.progress.lockForCompletion(organizationId, userId, course.id, lessonId, now, tx);
        if (!enrollment) throw notEnrolled();
        let counts: CompletionCounts | undefined;
        if (!enrollment.lesson_completed) {
          const quiz = hasQuiz ? await this.catalog.quizOf(lessonId, tx) : null;
          if (quiz && !(await this.progress.hasPassed(organizationId, userId, lessonId, quiz.id, tx))) {
            throw ApiError.conflict('quiz_not_passed', 'Pass the lesson quiz before completing the lesson.');
          }
          const completion = await this.progress.insertCompletion(organizationId, userId, course.id, lessonId, now, tx);
          if (completion.inserted) {
            await this.events.publish(
              tx,
              'lesson.completed',
              { user_id: userId, course_id: course.id, lesson_id: lessonId },
              { organizationId, actorId: userId, occurredAt: now },
            );
          }
          counts = completion;
        }
        if (enrollment.status === 'completed') return;
        await this.completeWhenDone(organizationId, userId, course, now, userId, tx, counts);
      })
      .catch((err: unknown) => {
        // The lesson was deleted, or the enrollment removed, in between.
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
  }

  /** Grades a submission of the lesson's quiz and records it (every attempt is kept). */
  async submitQuiz(
    member: Membership,
    idOrSlug: string,
    lessonId: string,
    dto: QuizSubmissionInputDto,
  ): Promise<QuizResultDto> {
    const { organizationId, userId } = member;
    const { course, lesson } = await this.enrolledLesson(member, idOrSlug, lessonId);
    const quiz = lesson.has_quiz ? await this.catalog.quizOf(lesson.id) : null;
    if (!quiz) throw ApiError.notFound('This lesson has no quiz.');
    const graded = gradeQuiz(quiz, dto.answers);
    if ('problems' in graded) throw ApiError.validation(graded.problems);
    const { grade } = graded;
    const now = this.clock.now();
    await this.transactions
      .run(async (tx) => {
        // One submission of an enrollment at a time: `first_pass` is true for exactly one passed submission.
        if (!(await this.progress.lock(organizationId, userId, course.id, tx))) throw ApiError.notFound();
        const passedBefore =
          grade.passed && (await this.progress.hasPassed(organizationId, userId, lesson.id, quiz.id, tx));
        const submissionId = await this.progress.insertSubmission(
          {
            organizationId,
            userId,
            courseId: course.id,
            lessonId: lesson.id,
            quizId: quiz.id,
            score: grade.score,
            passed: grade.passed,
            answers: dto.answers.map((a) => ({
              question_id: a.question_id.toLowerCase(),
              option_ids: [...new Set(a.option_ids.map((id) => id.toLowerCase()))],
            })),
            now,
          },
          tx,
        );
        await this.progress.touch(organizationId, userId, course.id, now, tx);
        await this.events.publish(
          tx,
          'quiz.submitted',
          {
            user_id: userId,
            course_id: course.id,
            lesson_id: lesson.id,
            quiz_id: quiz.id,
            submission_id: submissionId,
            score: grade.score,
            passed: grade.passed,
            first_pass: grade.passed && !passedBefore,
          },
          { organizationId, actorId: userId, occurredAt: now },
        );
      })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return grade;
  }

  /** The caller's enrollments in the organization, each with its course card, most recently enrolled first. */
  async mine(member: Membership): Promise<MyProgressDto> {
    const rows = await this.progress.listOf(member.organizationId, member.userId);
    const courseIds = rows.map((r) => r.course_id);
    const [cards, exams, scores] = await Promise.all([
      this.catalog.cards(courseIds),
      this.requirements?.examsOf(member.organizationId, member.userId, courseIds),
      this.lessonScores(member.organizationId, member.userId, courseIds),
    ]);
    return {
      items: rows.flatMap((row) => {
        const card = cards.get(row.course_id);
        const required = exams?.get(row.course_id) ?? NO_EXAM_REQUIREMENT;
        return card
          ? [
              {
                ...toDto(row, required),
                course: this.catalog.toCard(card, true),
                lesson_scores: lessonScoresDto(scores.get(row.course_id)),
              },
            ]
          : [];
      }),
    };
  }

  // Completion (extensions-v2 9.8): every lesson completed and every required exam passed, whichever comes last.

  /**
   * Reaction to a passed exam (ExamCompletionSubscriber, on `exam.submitted` and `exam.reviewed`): completes the
   * enrollment when that pass was its last requirement, at the time of the exam's fact. Already completed stays
   * completed (a later void never undoes it).
   */
  async completeAfterExam(
    organizationId: string,
    userId: string,
    courseId: string,
    at: Date,
    actorId: string | null,
    tx: Tx,
  ): Promise<void> {
    const enrollment = await this.progress.lock(organizationId, userId, courseId, tx);
    if (!enrollment || enrollment.status === 'completed') return;
    const course = await this.catalog.resolve(courseId, tx);
    if (course) await this.completeWhenDone(organizationId, userId, course, at, actorId, tx);
  }

  /**
   * With the enrollment locked: when every lesson is completed and every required exam passed, marks the course
   * completed, issues its certificate (when the course issues one) and publishes `course.completed`, in `tx`.
   * `counts`: the lessons completed and in the course when the caller has them (read with the completion); the
   * exams are read only once every lesson is completed.
   */
  private async completeWhenDone(
    organizationId: string,
    userId: string,
    course: CourseRow,
    now: Date,
    actorId: string | null,
    tx: Tx,
    counts?: CompletionCounts,
  ): Promise<void> {
    const { done, total } = counts ?? (await this.progress.completionCounts(organizationId, userId, course.id, tx));
    if (total === 0 || done < total) return;
    const exams = await this.examsOf(organizationId, userId, course.id, tx);
    if (exams.passed < exams.required) return;
    await this.progress.markCompleted(organizationId, userId, course.id, now, tx);
    await this.events.publish(
      tx,
      'course.completed',
      { user_id: userId, course_id: course.id, completed_at: now.toISOString() },
      { organizationId, actorId, occurredAt: now },
    );
    if (course.issues_certificate) {
      await this.certificates.issue(
        { type: 'course', organizationId, userId, subjectId: course.id, title: course.title, actorId },
        tx,
      );
    }
  }

  private async examsOf(organizationId: string, userId: string, courseId: string, tx?: Tx): Promise<ExamRequirement> {
    if (!this.requirements) return NO_EXAM_REQUIREMENT;
    return (
      (await this.requirements.examsOf(organizationId, userId, [courseId], tx)).get(courseId) ?? NO_EXAM_REQUIREMENT
    );
  }

  /** The course (reachable by this member), the lesson (of that course) and the caller's enrollment, or the error. */
  private async enrolledLesson(
    member: Membership,
    idOrSlug: string,
    lessonId: string,
  ): Promise<{ course: CourseRow; lesson: LessonRow }> {
    const reachable = await this.catalog.reachable(member.organizationId, idOrSlug, (courseId) =>
      this.progress.record(member.organizationId, member.userId, courseId),
    );
    if (!reachable) throw ApiError.notFound();
    const lesson = isUuid(lessonId) ? await this.catalog.lesson(reachable.course.id, lessonId.toLowerCase()) : null;
    if (!lesson) throw ApiError.notFound();
    if (!reachable.enrollment) throw notEnrolled();
    return { course: reachable.course, lesson };
  }
}

/** Lesson scores as the progress and teacher views show them. */
export function lessonScoresDto(scores: readonly LessonScore[] | undefined): LessonScoreDto[] {
  return (scores ?? []).map((s) => ({
    lesson_id: s.lesson_id,
    lesson_title: s.lesson_title,
    score: s.score,
    updated_at: s.updated_at.toISOString(),
  }));
}

function toDto(row: EnrollmentRow, exams: ExamRequirement): EnrollmentDto {
  return {
    course_id: row.course_id,
    status: row.status,
    progress: {
      completed_lessons: row.completed_lessons,
      total_lessons: row.total_lessons,
      percent: percent(row.completed_lessons, row.total_lessons),
    },
    exams: { required: exams.required, passed: exams.passed },
    enrolled_at: row.enrolled_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    last_activity_at: row.last_activity_at.toISOString(),
  };
}
