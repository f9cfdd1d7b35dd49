import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

describe('teacher views', () => {
  let t: TestApp;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let alice: SignedIn;
  let bruno: SignedIn;
  let carla: SignedIn;
  let ownerB: SignedIn;
  let orgA: string;
  let orgB: string;
  let cohort: string;
  let otherCohort: string;
  let cohortB: string;
  let python: MadeCourse;
  let history: MadeCourse;

  const teacherBase = (org = orgA): string => `/api/v1/organizations/${org}/teacher/cohorts`;
  const courses = `/api/v1/organizations/${'{org}'}/courses`;

  async function person(name: string, role: 'admin' | 'teacher' | 'student'): Promise<SignedIn> {
    const s = await adult(t);
    await s.agent.patch('/api/v1/me/profile').send({ name }).expect(200);
    await addMember(t, orgA, s.user.id, role);
    return s;
  }
  async function newCohort(
    name: string,
    members: [SignedIn, 'student' | 'teacher'][],
    by = owner,
    org = orgA,
  ): Promise<string> {
    const res = await by.agent.post(`/api/v1/organizations/${org}/cohorts`).send({ name }).expect(201);
    for (const [s, role] of members) {
      await by.agent
        .post(`/api/v1/organizations/${org}/cohorts/${res.body.id}/members`)
        .send({ user_id: s.user.id, role })
        .expect(201);
    }
    return res.body.id as string;
  }
  const path = (c: MadeCourse, suffix: string): string => `${courses.replace('{org}', orgA)}/${c.id}${suffix}`;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    admin = await person('Admin', 'admin');
    teacher = await person('Teacher', 'teacher');
    otherTeacher = await person('Other Teacher', 'teacher');
    alice = await person('Alice', 'student');
    bruno = await person('Bruno', 'student');
    carla = await person('Carla', 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
    cohort = await newCohort('Grupo A', [
      [teacher, 'teacher'],
      [alice, 'student'],
      [bruno, 'student'],
      [carla, 'student'],
    ]);
    t.clock.advance(1000);
    otherCohort = await newCohort('Grupo B', [
      [otherTeacher, 'teacher'],
      [carla, 'student'],
    ]);
    cohortB = await newCohort('B cohort', [], ownerB, orgB);
    python = await makeCourse(t, owner.user.id, {
      title: 'Python',
      lessons: [{ title: 'one' }, { title: 'two' }, { title: 'three' }, { title: 'four' }],
    });
    history = await makeCourse(t, owner.user.id, { title: 'Historia' });
    // Alice: Python at 50 %, Historia completed. Bruno: Python just enrolled. Carla: nothing.
    await alice.agent.post(path(python, '/enroll')).expect(201);
    await alice.agent.post(path(history, '/enroll')).expect(201);
    await bruno.agent.post(path(python, '/enroll')).expect(201);
    t.clock.advance(60_000);
    await alice.agent.post(path(python, `/lessons/${python.lessons[0].id}/complete`)).expect(200);
    await alice.agent.post(path(python, `/lessons/${python.lessons[1].id}/complete`)).expect(200);
    t.clock.advance(60_000);
    await alice.agent.post(path(history, `/lessons/${history.lessons[0].id}/complete`)).expect(200);
  });
  afterAll(() => t.close());

  describe('GET teacher/cohorts', () => {
    it('a teacher sees the cohorts they teach, with the member count', async () => {
      const res = await teacher.agent.get(teacherBase()).expect(200);
      expect(res.body).toEqual({
        items: [{ id: cohort, name: 'Grupo A', institute_id: null, starts_on: null, ends_on: null, members_count: 4 }],
        total: 1,
        limit: 50,
        offset: 0,
      });
      const other = await otherTeacher.agent.get(teacherBase()).expect(200);
      expect(other.body.items.map((c: { id: string; members_count: number }) => [c.id, c.members_count])).toEqual([
        [otherCohort, 2],
      ]);
    });

    it('owner and admin see every cohort, most recent first; paging limits', async () => {
      for (const who of [owner, admin]) {
        const res = await who.agent.get(teacherBase()).expect(200);
        expect(res.body.items.map((c: { id: string }) => c.id)).toEqual([otherCohort, cohort]);
      }
      const page = await owner.agent.get(teacherBase()).query({ limit: 1, offset: 1 }).expect(200);
      expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1, items: [{ id: cohort }] });
      await owner.agent.get(teacherBase()).query({ limit: 200 }).expect(200);
      await owner.agent.get(teacherBase()).query({ limit: 201 }).expect(422);
      await owner.agent.get(teacherBase()).query({ offset: -1 }).expect(422);
    });

    it('a student gets 403 forbidden', async () => {
      const res = await alice.agent.get(teacherBase()).expect(403);
      expect(res.body.error.code).toBe('forbidden');
    });
  });

  describe('GET teacher/cohorts/{cohort_id}/progress', () => {
    it('a teacher of the cohort gets one row per student and course, and a summary per student', async () => {
      const res = await teacher.agent.get(`${teacherBase()}/${cohort}/progress`).expect(200);
      expect(res.body.cohort).toEqual({ id: cohort, name: 'Grupo A' });
      expect(res.body.items).toEqual([
        {
          user_id: alice.user.id,
          name: 'Alice',
          course_id: history.id,
          course_title: 'Historia',
          percent: 100,
          completed: true,
          last_activity_at: expect.any(String),
        },
        {
          user_id: alice.user.id,
          name: 'Alice',
          course_id: python.id,
          course_title: 'Python',
          percent: 50,
          completed: false,
          last_activity_at: expect.any(String),
        },
        {
          user_id: bruno.user.id,
          name: 'Bruno',
          course_id: python.id,
          course_title: 'Python',
          percent: 0,
          completed: false,
          last_activity_at: expect.any(String),
        },
      ]);
      const [aliceHistory, alicePython, brunoPython] = res.body.items;
      expect(aliceHistory.last_activity_at > alicePython.last_activity_at).toBe(true);
      expect(alicePython.last_activity_at > brunoPython.last_activity_at).toBe(true);
      expect(res.body.students).toEqual([
        {
          user_id: alice.user.id,
          name: 'Alice',
          courses_enrolled: 2,
          courses_completed: 1,
          average_percent: 75,
          last_activity_at: aliceHistory.last_activity_at,
        },
        {
          user_id: bruno.user.id,
          name: 'Bruno',
          courses_enrolled: 1,
          courses_completed: 0,
          average_percent: 0,
          last_activity_at: brunoPython.last_activity_at,
        },
        {
          user_id: carla.user.id,
          name: 'Carla',
          courses_enrolled: 0,
          courses_completed: 0,
          average_percent: 0,
          last_activity_at: null,
        },
      ]);
      // The teacher is not one of the students.
      expect(res.body.students.map((s: { user_id: string }) => s.user_id)).not.toContain(teacher.user.id);
    });

    it('owner and admin see any cohort of the organization', async () => {
      for (const who of [owner, admin]) {
        const res = await who.agent.get(`${teacherBase()}/${otherCohort}/progress`).expect(200);
        expect(res.body.students.map((s: { name: string }) => s.name)).toEqual(['Carla']);
        expect(res.body.items).toEqual([]);
      }
    });

    it('a teacher of another cohort gets 403; a student 403; a cohort of another organization or an unknown id 404', async () => {
      const notTheirs = await otherTeacher.agent.get(`${teacherBase()}/${cohort}/progress`).expect(403);
      expect(notTheirs.body.error.code).toBe('forbidden');
      await teacher.agent.get(`${teacherBase()}/${otherCohort}/progress`).expect(403);
      const student = await alice.agent.get(`${teacherBase()}/${cohort}/progress`).expect(403);
      expect(student.body.error.code).toBe('forbidden');
      for (const id of [cohortB, '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11', 'nope']) {
        const res = await owner.agent.get(`${teacherBase()}/${id}/progress`).expect(404);
        expect(res.body.error.code).toBe('not_found');
      }
      await teacher.agent.get(`${teacherBase()}/${cohortB}/progress`).expect(404);
      await ownerB.agent.get(`${teacherBase(orgB)}/${cohortB}/progress`).expect(200);
      await ownerB.agent.get(`${teacherBase(orgB)}/${cohort}/progress`).expect(404);
    });

    it('progress in another organization does not count', async () => {
      await addMember(t, orgB, bruno.user.id, 'student');
      await bruno.agent.post(`/api/v1/organizations/${orgB}/courses/${history.id}/enroll`).expect(201);
      const res = await teacher.agent.get(`${teacherBase()}/${cohort}/progress`).expect(200);
      expect(res.body.items.filter((i: { user_id: string }) => i.user_id === bruno.user.id)).toHaveLength(1);
    });
  });
});
