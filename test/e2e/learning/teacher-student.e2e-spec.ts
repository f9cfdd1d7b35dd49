import { makeCourse, ONE_QUESTION_QUIZ, type MadeCourse } from '../../cross-tenant/learning.routes';
import type { SignedIn } from '../../support/auth';
import { lessonCompleted, publish, settle } from '../../support/engagement';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

/** extensions-v2 16.4: a student's detail in a cohort, for its teachers and the organization's admins. */
describe("teacher: a student's detail", () => {
  let t: TestApp;
  let owner: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let student: SignedIn;
  let outsider: SignedIn;
  let ownerB: SignedIn;
  let org: string;
  let orgB: string;
  let cohort: string;
  let otherCohort: string;
  let cohortB: string;
  let course: MadeCourse;

  const path = (c: string, u: string, o = org): string =>
    `/api/v1/organizations/${o}/teacher/cohorts/${c}/students/${u}`;

  beforeAll(async () => {
    // A fixed calendar (Thursday 2026-10-01): the last case moves the Clock across a week and a frozen day.
    t = await createTestApp({ clockOffsetMs: Date.parse('2026-10-01T09:00:00Z') - Date.now() });
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Detail Org');
    const add = async (role: 'teacher' | 'student'): Promise<SignedIn> => {
      const s = await adult(t);
      await addMember(t, org, s.user.id, role);
      return s;
    };
    teacher = await add('teacher');
    otherTeacher = await add('teacher');
    student = await add('student');
    outsider = await add('student');
    const cohorts = `/api/v1/organizations/${org}/cohorts`;
    cohort = (await owner.agent.post(cohorts).send({ name: 'Detail' }).expect(201)).body.id;
    otherCohort = (await owner.agent.post(cohorts).send({ name: 'Other' }).expect(201)).body.id;
    for (const [c, s, role] of [
      [cohort, student, 'student'],
      [cohort, teacher, 'teacher'],
      [otherCohort, otherTeacher, 'teacher'],
      [otherCohort, outsider, 'student'],
    ] as const) {
      await owner.agent.post(`${cohorts}/${c}/members`).send({ user_id: s.user.id, role }).expect(201);
    }
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Other');
    cohortB = (await ownerB.agent.post(`/api/v1/organizations/${orgB}/cohorts`).send({ name: 'B' }).expect(201)).body
      .id;
    course = await makeCourse(t, owner.user.id, {
      title: 'Detail course',
      lessons: [{ title: 'One' }, { title: 'Quiz', quiz: ONE_QUESTION_QUIZ }],
    });
    const base = `/api/v1/organizations/${org}/courses/${course.id}`;
    await student.agent.post(`${base}/enroll`).expect(201);
    await student.agent.post(`${base}/lessons/${course.lessons[0].id}/complete`).expect(200);
    const q = course.lessons[1].quiz!.questions[0];
    for (const right of [false, true]) {
      await student.agent
        .post(`${base}/lessons/${course.lessons[1].id}/quiz/submissions`)
        .send({ answers: [{ question_id: q.id, option_ids: [q.options.find((o) => o.correct === right)!.id] }] })
        .expect(201);
    }
    await waitUntil(
      async () =>
        (await t.db.query(`SELECT 1 FROM learning_activity_hourly WHERE user_id = $1`, [student.user.id])).length > 0,
      { what: 'activity' },
    );
    await settle(t);
  });
  afterAll(() => t.close());

  it('the cohort teacher sees courses with quizzes, exams, activity and xp', async () => {
    const res = await teacher.agent.get(path(cohort, student.user.id)).expect(200);
    expect(res.body).toEqual({
      student: { user_id: student.user.id, name: 'Test Person', email: student.email },
      cohort: { id: cohort, name: 'Detail' },
      courses: [
        {
          course_id: course.id,
          title: 'Detail course',
          status: 'active',
          percent: 50,
          lessons_completed: 1,
          lessons_total: 2,
          last_activity_at: expect.any(String),
          quizzes: [
            { lesson_id: course.lessons[1].id, lesson_title: 'Quiz', attempts: 2, best_score: 100, passed: true },
          ],
          lesson_scores: [],
        },
      ],
      exams: [],
      deadlines: [],
      activity: {
        last_active_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        active_days_last_30: 1,
        streak_current: 1,
      },
      xp: { total: 30, week: 30 }, // a lesson (10) and a passed quiz (20)
    });
    await owner.agent.get(path(cohort, student.user.id)).expect(200);
  });

  it('403 for a teacher of another cohort and for a student; 404 outside the cohort or organization', async () => {
    expect((await otherTeacher.agent.get(path(cohort, student.user.id))).status).toBe(403);
    expect((await student.agent.get(path(cohort, student.user.id))).status).toBe(403);
    expect((await teacher.agent.get(path(cohort, outsider.user.id))).status).toBe(404);
    expect((await teacher.agent.get(path(cohort, teacher.user.id))).status).toBe(404);
    expect((await owner.agent.get(path(cohortB, student.user.id))).status).toBe(404);
    expect((await ownerB.agent.get(path(cohort, student.user.id))).status).toBe(404);
    expect((await owner.agent.get(path('nope', student.user.id))).status).toBe(404);
    expect((await owner.agent.get(path(cohort, 'nope'))).status).toBe(404);
  });

  // Last: it moves the Clock (sessions are refreshed before each use).
  it("xp and streak are the learner's own: a frozen day keeps the streak, the week is the organization's", async () => {
    const setClock = (iso: string): void => t.clock.advance(Date.parse(iso) - t.clock.nowMs());
    const fresh = async (s: SignedIn): Promise<SignedIn> => {
      await s.agent.post('/api/v1/auth/refresh').expect(200);
      return s;
    };
    // UTC+14: Sunday noon UTC is already Monday there, in the next ISO week.
    await owner.agent.patch(`/api/v1/organizations/${org}`).send({ time_zone: 'Pacific/Kiritimati' }).expect(200);
    const learner = await adult(t); // zone UTC
    await addMember(t, org, learner.user.id, 'student');
    await addMember(t, orgB, learner.user.id, 'student');
    await owner.agent
      .post(`/api/v1/organizations/${org}/cohorts/${cohort}/members`)
      .send({ user_id: learner.user.id, role: 'student' })
      .expect(201);
    const made = await makeCourse(t, owner.user.id, {
      title: 'Four lessons',
      lessons: [{ title: 'L1' }, { title: 'L2' }, { title: 'L3' }, { title: 'L4' }],
    });
    const base = `/api/v1/organizations/${org}/courses/${made.id}`;
    const complete = async (i: number): Promise<void> => {
      await (await fresh(learner)).agent.post(`${base}/lessons/${made.lessons[i].id}/complete`).expect(200);
      await settle(t);
    };
    setClock('2026-10-03T12:00:00Z'); // Saturday (UTC; Sunday in the organization: ISO week 40)
    await (await fresh(learner)).agent.post(`${base}/enroll`).expect(201);
    await complete(0); // the first activity grants a freeze
    setClock('2026-10-04T12:00:00Z'); // Sunday (UTC; Monday in the organization: ISO week 41)
    await complete(1);
    // Monday 2026-10-05 (UTC): no activity, a freeze is spent.
    setClock('2026-10-06T12:00:00Z'); // Tuesday
    await complete(2);
    // XP in another organization is not this organization's.
    await publish(t, 'lesson.completed', lessonCompleted(learner.user.id), orgB, { occurredAt: t.clock.now() });
    setClock('2026-10-06T18:00:00Z');

    const detail = (await (await fresh(teacher)).agent.get(path(cohort, learner.user.id)).expect(200)).body;
    expect(detail.activity).toEqual({ last_active_on: '2026-10-06', active_days_last_30: 3, streak_current: 3 });
    expect(detail.xp).toEqual({ total: 30, week: 20 });
    // What the learner sees.
    const me = await fresh(learner);
    expect((await me.agent.get('/api/v1/me/streak').expect(200)).body).toMatchObject({
      current: 3,
      frozen_on: ['2026-10-05'],
    });
    const xp = (await me.agent.get(`/api/v1/organizations/${org}/xp`).expect(200)).body;
    expect({ total: xp.xp, week: xp.week_xp }).toEqual(detail.xp);
  });
});
