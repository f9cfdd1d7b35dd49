import { Injectable } from '@nestjs/common';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { type Page, type PageQueryDto, toPage } from '@/core/http/pagination';
import { CohortsService } from '@/modules/cohorts/cohorts.service';
import { CatalogService } from '@/modules/courses/catalog.service';
import { ProgressService } from '@/modules/progress/progress.service';
import { UsersService } from '@/modules/users/users.service';
import type { CohortProgressDto, StudentCourseProgressDto, TeacherCohortDto } from './dto/teacher.dto';

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
  ) {}

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
