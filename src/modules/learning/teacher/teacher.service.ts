import { Injectable } from '@nestjs/common';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { type Page, type PageQueryDto, toPage } from '@/core/http/pagination';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { CatalogService } from '@/modules/learning/courses';
import { lessonScoresDto, ProgressService } from '@/modules/learning/progress';
import { UsersService } from '@/modules/identity/users';
import { StreaksService, XpService } from '@/modules/practice/gamification';
import { Clock } from '@/core/clock/clock';
import { addDays, localDate } from '@/core/time/local-time';
import type {
  CohortProgressDto,
  StudentCourseProgressDto,
  StudentDetailDto,
  StudentQuizDto,
  TeacherCohortDto,
} from './dto/teacher.dto';
import { TeacherRepository } from './teacher.repository';

const byName = (a: { name: string | null; user_id: string }, b: { name: string | null; user_id: string }): number =>
  (a.name ?? '').localeCompare(b.name ?? '') || a.user_id.localeCompare(b.user_id);

/** Teacher dashboards: the cohorts a teacher teaches (owner/admin: all) and the learning progress of one. */
@Injectable()
export class TeacherService {
  constructor(
    private readonly cohorts: CohortsService,
    private readonly progress: ProgressService,
    private readonly catalog: CatalogService,
    private readonly users: UsersService,
    private readonly repository: TeacherRepository,
    private readonly streaks: StreaksService,
    private readonly xp: XpService,
    private readonly clock: Clock,
  ) {}

  /**
   * One student of a cohort (16.4): courses with quizzes, exams, deadlines, activity and XP. A cohort of another
   * organization, or a person who is not a student of the cohort, is 404; a teacher of another cohort 403.
   * The streak and the XP are the learner's own (gamification's `GET /me/streak` and `GET /me/xp` in this
   * organization): the streak counts freezes, the week is the weekly leaderboard's.
   */
  async studentDetail(member: Membership, cohortId: string, userId: string): Promise<StudentDetailDto> {
    const { organizationId } = member;
    if (!isUuid(cohortId) || !isUuid(userId)) throw ApiError.notFound();
    const cohort = await this.cohorts.findInOrganization(organizationId, cohortId.toLowerCase());
    if (!cohort) throw ApiError.notFound();
    if (!isAdmin(member.role) && !(await this.cohorts.isTeacherOf(organizationId, cohort.id, member.userId))) {
      throw ApiError.forbidden('You do not teach this cohort.');
    }
    const studentId = userId.toLowerCase();
    if (!(await this.repository.isStudentOf(organizationId, cohort.id, studentId))) throw ApiError.notFound();
    const student = await this.users.getById(studentId);
    const now = this.clock.now();
    const [courses, exams, days, streaks, xp] = await Promise.all([
      this.repository.courses(organizationId, studentId),
      this.repository.exams(organizationId, studentId),
      this.repository.activeDays(organizationId, studentId, student.timeZone),
      this.streaks.currentOf([studentId], now),
      this.xp.memberXp(organizationId, studentId),
    ]);
    const scores = await this.progress.lessonScores(
      organizationId,
      studentId,
      courses.map((c) => c.course_id as string),
    );
    const today = localDate(now, student.timeZone);
    const since = addDays(today, -29);
    return {
      student: { user_id: student.id, name: student.name, email: student.email },
      cohort: { id: cohort.id, name: cohort.name },
      courses: courses.map((c) => {
        const total = c.lessons_total as number;
        const done = c.lessons_completed as number;
        return {
          course_id: c.course_id as string,
          title: c.title as string,
          status: c.status as 'active' | 'completed',
          percent: total > 0 ? Math.round((100 * done) / total) : 0,
          lessons_completed: done,
          lessons_total: total,
          last_activity_at: new Date(c.last_activity_at as string).toISOString(),
          quizzes: c.quizzes as StudentQuizDto[],
          lesson_scores: lessonScoresDto(scores.get(c.course_id as string)),
        };
      }),
      exams: exams.map((e) => ({
        exam_id: e.exam_id as string,
        title: e.title as string,
        attempts: e.attempts as number,
        best_score: e.best_score === null ? null : Number(e.best_score),
        passed: e.passed as boolean,
        flagged_sessions: e.flagged_sessions as number,
      })),
      deadlines: [],
      activity: {
        last_active_on: days.at(-1) ?? null,
        active_days_last_30: days.filter((d) => d >= since && d <= today).length,
        streak_current: streaks.get(studentId)?.current ?? 0,
      },
      xp,
    };
  }

  async cohortsOf(member: Membership, page: PageQueryDto): Promise<Page<TeacherCohortDto>> {
    const { items, total } = await this.cohorts.list(member, { limit: page.limit, offset: page.offset });
    return toPage(
      items.map((c) => ({
        id: c.id,
        name: c.name,
        institute_id: c.institute_id,
        starts_on: c.starts_on,
        ends_on: c.ends_on,
        members_count: c.members_count,
      })),
      total,
      page,
    );
  }

  /** A cohort of another organization is 404; a teacher who does not teach this cohort gets 403. */
  async cohortProgress(member: Membership, cohortId: string): Promise<CohortProgressDto> {
    const { organizationId } = member;
    if (!isUuid(cohortId)) throw ApiError.notFound();
    const cohort = await this.cohorts.findInOrganization(organizationId, cohortId.toLowerCase());
    if (!cohort) throw ApiError.notFound();
    if (!isAdmin(member.role) && !(await this.cohorts.isTeacherOf(organizationId, cohort.id, member.userId))) {
      throw ApiError.forbidden('You do not teach this cohort.');
    }
    const studentIds = await this.cohorts.studentIdsOf(organizationId, cohort.id);
    const [people, progress] = await Promise.all([
      this.users.findByIds(studentIds),
      this.progress.progressOf(organizationId, studentIds),
    ]);
    const names = new Map(people.map((u) => [u.id, u.name]));
    const courses = await this.catalog.cards([...new Set(progress.map((p) => p.course_id))]);
    const items: StudentCourseProgressDto[] = progress
      .map((p) => ({
        user_id: p.user_id,
        name: names.get(p.user_id) ?? null,
        course_id: p.course_id,
        course_title: courses.get(p.course_id)?.title ?? '',
        percent: p.percent,
        completed: p.completed,
        last_activity_at: p.last_activity_at.toISOString(),
      }))
      .sort(
        (a, b) =>
          byName(a, b) || a.course_title.localeCompare(b.course_title) || a.course_id.localeCompare(b.course_id),
      );
    const students = studentIds
      .map((userId) => {
        const mine = items.filter((i) => i.user_id === userId);
        const latest = mine.reduce<string | null>(
          (max, i) => (max === null || i.last_activity_at > max ? i.last_activity_at : max),
          null,
        );
        return {
          user_id: userId,
          name: names.get(userId) ?? null,
          courses_enrolled: mine.length,
          courses_completed: mine.filter((i) => i.completed).length,
          average_percent: mine.length ? Math.round(mine.reduce((sum, i) => sum + i.percent, 0) / mine.length) : 0,
          last_activity_at: latest,
        };
      })
      .sort(byName);
    return { cohort: { id: cohort.id, name: cohort.name }, students, items };
  }
}
