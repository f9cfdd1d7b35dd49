import { randomUUID } from 'node:crypto';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Membership } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { UserEntity } from '@/modules/identity/users/testing';
import { DeadlinesRepository, DeadlinesService } from '@/modules/learning/deadlines/testing';
import { CohortsService, InstituteLinks } from '@/modules/tenancy/cohorts';
import { CohortsRepository } from '@/modules/tenancy/cohorts/testing';
import { OrganizationEntity } from '@/modules/tenancy/organizations/testing';
import { ORGANIZATIONS, PEOPLE } from '../../support/integration-neighbours';
import {
  clockAt,
  createIntegration,
  type Integration,
  insertMember,
  insertOrganization,
  insertUser,
  outOfScope,
} from '../../support/integration';

/**
 * Cohort deadlines (extensions-v2 25.2) through the deadlines service and repository on the real database: due dates
 * in the future only, one per cohort and course, each student's status (done, overdue, upcoming) by the Clock, and
 * the caller's list by local days of the organization (Tokyo, UTC+9).
 */
describe('Cohort deadlines (integration)', () => {
  let it_: Integration;
  let service: DeadlinesService;
  let org: string;
  let owner: Membership;
  let cohort: string;
  let teacher: Membership;

  beforeAll(async () => {
    it_ = await createIntegration({
      imports: [TypeOrmModule.forFeature([UserEntity, OrganizationEntity])],
      providers: [
        DeadlinesRepository,
        DeadlinesService,
        CohortsRepository,
        CohortsService,
        ...ORGANIZATIONS,
        ...PEOPLE,
        { provide: InstituteLinks, useValue: outOfScope('InstituteLinks') },
      ],
    });
    service = it_.get(DeadlinesService);
    const o = await insertUser(it_.db);
    org = await insertOrganization(it_.db, o.id, { timeZone: 'Asia/Tokyo' });
    owner = { organizationId: org, userId: o.id, role: 'owner' };
    [{ id: cohort }] = await it_.db.query<{ id: string }[]>(
      `INSERT INTO cohorts (organization_id, name) VALUES ($1, 'Evening') RETURNING id`,
      [org],
    );
    teacher = await person('teacher', 'teacher');
  });

  afterAll(async () => {
    await it_?.close();
  });

  async function person(
    role: 'student' | 'teacher',
    cohortRole: 'student' | 'teacher' | null = 'student',
  ): Promise<Membership> {
    const { id } = await insertUser(it_.db);
    await insertMember(it_.db, org, id, role);
    if (cohortRole)
      await it_.db.query(
        `INSERT INTO cohort_members (cohort_id, organization_id, user_id, role) VALUES ($1, $2, $3, $4)`,
        [cohort, org, id, cohortRole],
      );
    return { organizationId: org, userId: id, role };
  }

  async function course(title: string): Promise<string> {
    const [row] = await it_.db.query<{ id: string }[]>(
      `INSERT INTO courses (slug, title, language, level, status, visibility, published_at)
       VALUES ($1, $2, 'en', 'beginner', 'published', 'public', now()) RETURNING id`,
      [`course-${randomUUID().slice(0, 8)}`, title],
    );
    return row.id;
  }

  async function enrolled(m: Membership, courseId: string, completedAt: string | null): Promise<void> {
    await it_.db.query(
      `INSERT INTO enrollments (organization_id, user_id, course_id, status, completed_at) VALUES ($1, $2, $3, $4, $5)`,
      [org, m.userId, courseId, completedAt ? 'completed' : 'active', completedAt],
    );
  }

  async function refusal(work: Promise<unknown>): Promise<{ status: number; code: string }> {
    const err = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return { status: (err as ApiError).status, code: (err as ApiError).code };
  }

  it('a due date must lie ahead; the title defaults to the course’s; one deadline per cohort and course', async () => {
    clockAt(it_.clock, '2026-12-01T00:00:00Z');
    const courseId = await course('Chemistry');
    expect(
      await refusal(service.create(teacher, cohort, { course_id: courseId, due_at: '2026-12-01T00:00:00.000Z' })),
    ).toMatchObject({ status: 422 });
    const created = await service.create(teacher, cohort, { course_id: courseId, due_at: '2026-12-01T00:00:00.001Z' });
    expect(created).toMatchObject({
      cohort_id: cohort,
      course_id: courseId,
      course_title: 'Chemistry',
      title: 'Chemistry',
      due_at: '2026-12-01T00:00:00.001Z',
      created_by: { user_id: teacher.userId },
      created_at: '2026-12-01T00:00:00.000Z',
    });
    expect(
      await refusal(service.create(owner, cohort, { course_id: courseId, due_at: '2026-12-20T00:00:00Z' })),
    ).toEqual({ status: 409, code: 'deadline_exists' });
    // A student of the cohort may read but not set; a member outside the cohort does not see it.
    const student = await person('student');
    expect(
      (await refusal(service.create(student, cohort, { course_id: courseId, due_at: '2026-12-20T00:00:00Z' }))).status,
    ).toBe(403);
    expect((await refusal(service.list(await person('student', null), cohort))).status).toBe(404);
  });

  it('each student’s status: done when completed before due_at, overdue once due_at is reached, else upcoming', async () => {
    clockAt(it_.clock, '2026-12-02T00:00:00Z');
    const courseId = await course('Physics');
    const due = '2026-12-10T09:00:00.000Z';
    const { id } = await service.create(owner, cohort, { course_id: courseId, due_at: due, title: 'Physics, part 1' });
    const [early, onTheDot, late, never] = [
      await person('student'),
      await person('student'),
      await person('student'),
      await person('student'),
    ];
    await enrolled(early, courseId, '2026-12-10T08:59:59.999Z');
    await enrolled(onTheDot, courseId, null);
    await enrolled(late, courseId, null);
    const statusOf = async (m: Membership) => (await service.list(m, cohort)).items.find((d) => d.id === id)?.status;

    clockAt(it_.clock, '2026-12-10T08:59:59.999Z');
    expect(await statusOf(early)).toBe('done');
    expect(await statusOf(never)).toBe('upcoming');
    // Staff see the deadline without a status.
    expect((await service.list(teacher, cohort)).items.find((d) => d.id === id)).not.toHaveProperty('status');

    // Completing at due_at itself is not before it.
    await it_.db.query(
      `UPDATE enrollments SET status = 'completed', completed_at = $3 WHERE organization_id = $1 AND user_id = $2`,
      [org, onTheDot.userId, due],
    );
    clockAt(it_.clock, due);
    expect(await statusOf(onTheDot)).toBe('overdue');
    expect(await statusOf(never)).toBe('overdue');
    clockAt(it_.clock, '2026-12-11T00:00:00Z');
    await it_.db.query(
      `UPDATE enrollments SET status = 'completed', completed_at = $3 WHERE organization_id = $1 AND user_id = $2`,
      [org, late.userId, '2026-12-10T23:00:00Z'],
    );
    expect(await statusOf(late)).toBe('overdue');
    expect(await statusOf(early)).toBe('done');

    // Postponed past the late completion: it becomes done for that student, upcoming again for the one who never did.
    await service.update(teacher, cohort, id, { due_at: '2026-12-15T09:00:00.000Z' });
    expect(await statusOf(late)).toBe('done');
    expect(await statusOf(never)).toBe('upcoming');
  });

  it('the caller’s deadlines by due_at within local days of the organization, both ends inclusive', async () => {
    clockAt(it_.clock, '2027-01-01T00:00:00Z');
    const student = await person('student');
    // In Tokyo the 20th runs from 15:00Z on the 19th to 15:00Z on the 20th.
    const dues: Record<string, string> = {
      before: '2027-01-19T14:59:59.999Z', // 23:59:59.999 on the 19th
      first: '2027-01-19T15:00:00.000Z', // 00:00 on the 20th
      last: '2027-01-20T14:59:59.999Z', // 23:59:59.999 on the 20th
      after: '2027-01-20T15:00:00.000Z', // 00:00 on the 21st: a midnight due date belongs to the 21st
    };
    const ids: Record<string, string> = {};
    for (const [name, due] of Object.entries(dues))
      ids[(await service.create(owner, cohort, { course_id: await course(name), due_at: due })).id] = name;
    const names = async (from?: string, to?: string) =>
      (await service.mine(student, { from, to })).items.filter((d) => ids[d.id]).map((d) => ids[d.id]);
    expect(await names('2027-01-20', '2027-01-20')).toEqual(['first', 'last']);
    expect(await names('2027-01-21')).toEqual(['after']);
    expect(await names(undefined, '2027-01-19')).toEqual(['before']);
    expect(await names()).toEqual(['before', 'first', 'last', 'after']);
    expect((await refusal(service.mine(student, { from: '2027-01-21', to: '2027-01-20' }))).status).toBe(422);
  });
});
