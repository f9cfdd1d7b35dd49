import { localDate } from '@/core/time/local-time';
import { makeCourse, ONE_QUESTION_QUIZ, type MadeCourse } from '../../cross-tenant/learning.routes';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const ADMIN_EMAIL = 'stats-admin@ops.test';

/**
 * Statistics (extensions-v2 14): the hourly aggregate kept by the event subscriber, and the four views read from
 * it and the learning tables: personal, organization (cohort-limited for teachers), course (editor), platform.
 */
describe('stats', () => {
  let t: TestApp;
  let admin: SignedIn;
  let owner: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let s1: SignedIn;
  let s2: SignedIn;
  let ownerB: SignedIn;
  let org: string;
  let orgB: string;
  let cohort: string;
  let cohortB: string;
  let course: MadeCourse;

  const orgStats = (o = org): string => `/api/v1/organizations/${o}/stats`;
  const base = (): string => `/api/v1/organizations/${org}/courses/${course.id}`;

  async function activityOf(userId: string): Promise<number> {
    const rows = await t.db.query(
      `SELECT coalesce(sum(lessons_completed + quizzes_submitted + enrollments + completions), 0)::int AS n
       FROM learning_activity_hourly WHERE user_id = $1`,
      [userId],
    );
    return rows[0].n as number;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL } });
    admin = await adult(t, ADMIN_EMAIL);
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Stats Org');
    const add = async (role: 'teacher' | 'student'): Promise<SignedIn> => {
      const s = await adult(t);
      await addMember(t, org, s.user.id, role);
      return s;
    };
    teacher = await add('teacher');
    otherTeacher = await add('teacher');
    s1 = await add('student');
    s2 = await add('student');
    cohort = (await owner.agent.post(`/api/v1/organizations/${org}/cohorts`).send({ name: 'C' }).expect(201)).body.id;
    for (const [s, role] of [
      [s1, 'student'],
      [teacher, 'teacher'],
    ] as const) {
      await owner.agent
        .post(`/api/v1/organizations/${org}/cohorts/${cohort}/members`)
        .send({ user_id: s.user.id, role })
        .expect(201);
    }
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Other');
    cohortB = (await ownerB.agent.post(`/api/v1/organizations/${orgB}/cohorts`).send({ name: 'B' }).expect(201)).body
      .id;
    course = await makeCourse(t, admin.user.id, {
      title: 'Stats course',
      lessons: [{ title: 'One' }, { title: 'Two', quiz: ONE_QUESTION_QUIZ }],
    });
    // s1 completes the course (two lessons, the quiz passed); s2 enrolls and fails the quiz once.
    const q = course.lessons[1].quiz!.questions[0];
    const right = q.options.find((o) => o.correct)!.id;
    const wrong = q.options.find((o) => !o.correct)!.id;
    for (const s of [s1, s2]) await s.agent.post(`${base()}/enroll`).expect(201);
    await s1.agent
      .post(`${base()}/lessons/${course.lessons[0].id}/complete`)
      .expect((r) => expect(r.status).toBeLessThan(300));
    await s1.agent
      .post(`${base()}/lessons/${course.lessons[1].id}/quiz/submissions`)
      .send({ answers: [{ question_id: q.id, option_ids: [right] }] })
      .expect(201);
    await s1.agent
      .post(`${base()}/lessons/${course.lessons[1].id}/complete`)
      .expect((r) => expect(r.status).toBeLessThan(300));
    await s2.agent
      .post(`${base()}/lessons/${course.lessons[1].id}/quiz/submissions`)
      .send({ answers: [{ question_id: q.id, option_ids: [wrong] }] })
      .expect(201);
    await owner.agent.post(`/api/v1/organizations/${org}/courses/${course.id}/ratings`).send({ stars: 4 });
    // The subscriber applies the events in the background.
    await waitUntil(async () => (await activityOf(s1.user.id)) >= 5 && (await activityOf(s2.user.id)) >= 2, {
      what: 'the activity aggregate',
    });
  });
  afterAll(() => t.close());

  it('the aggregate holds one row per person and hour with the counts of their facts', async () => {
    const rows = await t.db.query(
      `SELECT sum(lessons_completed)::int AS lessons, sum(quizzes_submitted)::int AS quizzes,
         sum(quizzes_passed)::int AS passed, sum(enrollments)::int AS enrollments, sum(completions)::int AS completions
       FROM learning_activity_hourly WHERE user_id = $1 AND organization_id = $2`,
      [s1.user.id, org],
    );
    expect(rows[0]).toEqual({ lessons: 2, quizzes: 1, passed: 1, enrollments: 1, completions: 1 });
  });

  describe('organization', () => {
    it('owner: members, active users, enrollments, top courses and one series entry per local day', async () => {
      const res = await owner.agent.get(orgStats()).query({ days: 7 }).expect(200);
      expect(res.headers['cache-control']).toBe('private, max-age=300');
      const b = res.body;
      expect(b.members).toEqual({
        total: 5,
        by_role: { owner: 1, admin: 0, teacher: 2, student: 2 },
        joined_in_period: 5,
      });
      expect(b.active_users).toEqual({ day: 2, week: 2, month: 2 });
      expect(b.enrollments).toEqual({ total: 2, in_period: 2, completed_in_period: 1, completion_rate: 50 });
      expect(b.exams).toEqual({ sessions_in_period: 0, pass_rate: null, flagged_in_period: 0 });
      expect(b.top_courses).toEqual([
        { course_id: course.id, title: 'Stats course', enrollments_in_period: 2, completions_in_period: 1 },
      ]);
      expect(b.series).toHaveLength(7);
      const today = localDate(t.clock.now(), 'UTC');
      expect(b.series[6]).toEqual({
        date: today,
        active_users: 2,
        lessons_completed: 2,
        enrollments: 2,
        completions: 1,
      });
      expect(b.series[0].active_users).toBe(0);
      expect(b.computed_at).toMatch(/Z$/);
      expect(Date.parse(b.period.to) - Date.parse(b.period.from)).toBeLessThanOrEqual(7 * 86_400_000);
    });

    it("with cohort_id everything is limited to the cohort's students; teachers need a cohort they teach", async () => {
      const res = await teacher.agent.get(orgStats()).query({ cohort_id: cohort }).expect(200);
      expect(res.body.members.total).toBe(1);
      expect(res.body.enrollments).toEqual({ total: 1, in_period: 1, completed_in_period: 1, completion_rate: 100 });
      expect(res.body.active_users.day).toBe(1);
      expect((await teacher.agent.get(orgStats())).status).toBe(403);
      expect((await otherTeacher.agent.get(orgStats()).query({ cohort_id: cohort })).status).toBe(403);
      expect((await s1.agent.get(orgStats())).status).toBe(403);
      const other = await owner.agent.get(orgStats()).query({ cohort_id: cohortB });
      expect([other.status, other.body.error.code]).toEqual([404, 'not_found']);
      expect((await ownerB.agent.get(orgStats(org))).status).toBe(404);
    });

    it('days must be 7..90', async () => {
      for (const [days, status] of [
        [6, 422],
        [7, 200],
        [90, 200],
        [91, 422],
        ['x', 422],
      ] as const) {
        const res = await owner.agent.get(orgStats()).query({ days });
        expect([days, res.status]).toEqual([days, status]);
        if (status === 200) expect(res.body.series).toHaveLength(days);
      }
    });

    it("series follow the organization's time zone", async () => {
      await owner.agent.patch(`/api/v1/organizations/${org}`).send({ time_zone: 'Pacific/Kiritimati' }).expect(200);
      try {
        const res = await owner.agent.get(orgStats()).expect(200);
        const today = localDate(t.clock.now(), 'Pacific/Kiritimati');
        expect(res.body.series[29].date).toBe(today);
        expect(
          res.body.series.reduce((a: number, s: { lessons_completed: number }) => a + s.lessons_completed, 0),
        ).toBe(2);
      } finally {
        await owner.agent.patch(`/api/v1/organizations/${org}`).send({ time_zone: 'UTC' }).expect(200);
      }
    });
  });

  describe('me', () => {
    it('counts the person’s learning, streak and active days', async () => {
      const res = await s1.agent.get('/api/v1/me/stats').expect(200);
      expect(res.headers['cache-control']).toBe('private, max-age=300');
      expect(res.body).toMatchObject({
        courses: { enrolled: 1, completed: 1 },
        lessons_completed: 2,
        quizzes: { submitted: 1, passed: 1, average_score: 100 },
        exams: { sessions: 0, passed: 0 },
        streak: { current: 1, longest: 1 },
        active_days: 1,
      });
      expect(res.body.series).toHaveLength(30);
      expect(res.body.series[29]).toMatchObject({ lessons_completed: 2, reviews: 0 });
      const s2res = await s2.agent.get('/api/v1/me/stats').expect(200);
      expect(s2res.body.quizzes).toEqual({ submitted: 1, passed: 0, average_score: 0 });
      expect(s2res.body.courses).toEqual({ enrolled: 1, completed: 0 });
    });

    it('a bearer token counts its organization only', async () => {
      await addMember(t, orgB, s1.user.id, 'student');
      const token = await personalToken(t, s1, orgB, 'read');
      const res = await bearer(t, token).get('/api/v1/me/stats').expect(200);
      expect(res.body.courses).toEqual({ enrolled: 0, completed: 0 });
      expect(res.body.lessons_completed).toBe(0);
      expect(res.body.active_days).toBe(0);
    });
  });

  describe('editor course', () => {
    it('aggregates over organizations without names; lesson and quiz figures', async () => {
      const res = await admin.agent.get(`/api/v1/editor/courses/${course.id}/stats`).expect(200);
      expect(res.body).toMatchObject({
        enrollments: { total: 2, in_period: 2 },
        completions: { total: 1, in_period: 1 },
        completion_rate: 50,
        organizations: 1,
        exams: [],
      });
      expect(res.body.lessons).toEqual([
        { lesson_id: course.lessons[0].id, position: 1, title: 'One', completions: 1, completion_rate: 50, quiz: null },
        {
          lesson_id: course.lessons[1].id,
          position: 2,
          title: 'Two',
          completions: 1,
          completion_rate: 50,
          quiz: { submissions: 2, pass_rate: 50, average_score: 50 },
        },
      ]);
      expect(JSON.stringify(res.body)).not.toContain(s1.user.id);
      expect((await owner.agent.get(`/api/v1/editor/courses/${course.id}/stats`)).status).toBe(403);
      expect((await admin.agent.get(`/api/v1/editor/courses/00000000-0000-4000-8000-000000000000/stats`)).status).toBe(
        404,
      );
    });
  });

  describe('platform', () => {
    it('platform admins only', async () => {
      const res = await admin.agent.get('/api/v1/admin/stats').query({ days: 7 }).expect(200);
      expect(res.body.organizations.total).toBeGreaterThanOrEqual(2);
      expect(res.body.users.active.day).toBeGreaterThanOrEqual(2);
      expect(res.body.enrollments.in_period).toBeGreaterThanOrEqual(2);
      expect(res.body.series).toHaveLength(7);
      expect(res.body.series[6].enrollments).toBeGreaterThanOrEqual(2);
      expect(res.body.ai).toEqual({ requests_in_period: 0, tokens_in_period: 0 });
      expect((await owner.agent.get('/api/v1/admin/stats')).status).toBe(403);
    });
  });
});
