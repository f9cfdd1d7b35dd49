import { randomBytes } from 'node:crypto';
import ical, { type VEvent } from 'node-ical';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY = 24 * 3_600_000;
const KEYS = [
  'cohort_id',
  'course_id',
  'course_title',
  'created_at',
  'created_by',
  'due_at',
  'id',
  'title',
  'updated_at',
];

describe('cohort deadlines and the calendar feed (extensions-v2 25.2)', () => {
  let t: TestApp;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let student: SignedIn;
  let outsider: SignedIn;
  let ownerB: SignedIn;
  let org: string;
  let orgB: string;
  let cohort: string;
  let cohortB: string;
  let course1: string;
  let course2: string;

  const deadlines = (c = cohort, o = org): string => `/api/v1/organizations/${o}/cohorts/${c}/deadlines`;
  const inDays = (days: number): string => new Date(t.clock.now().getTime() + days * DAY).toISOString();

  async function course(title: string, extra: { status?: string; restrictedTo?: string } = {}): Promise<string> {
    const [row] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level, status, visibility, published_at)
       VALUES ($1, $2, 'es', 'beginner', $3, $4, now()) RETURNING id`,
      [
        `c-${randomBytes(5).toString('hex')}`,
        title,
        extra.status ?? 'published',
        extra.restrictedTo ? 'restricted' : 'public',
      ],
    );
    if (extra.restrictedTo) {
      await t.db.query(`INSERT INTO course_organizations (course_id, organization_id) VALUES ($1, $2)`, [
        row.id,
        extra.restrictedTo,
      ]);
    }
    return row.id;
  }

  async function newCohort(o: string, by: SignedIn, name: string): Promise<string> {
    const res = await by.agent.post(`/api/v1/organizations/${o}/cohorts`).send({ name }).expect(201);
    return res.body.id;
  }

  async function join(c: string, who: SignedIn, role: 'student' | 'teacher', o = org, by = owner): Promise<void> {
    await by.agent
      .post(`/api/v1/organizations/${o}/cohorts/${c}/members`)
      .send({ user_id: who.user.id, role })
      .expect((res) => expect([200, 201]).toContain(res.status));
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Deadline School');
    [admin, teacher, otherTeacher, student, outsider] = await Promise.all([
      adult(t),
      adult(t),
      adult(t),
      adult(t),
      adult(t),
    ]);
    await addMember(t, org, admin.user.id, 'admin');
    await addMember(t, org, teacher.user.id, 'teacher');
    await addMember(t, org, otherTeacher.user.id, 'teacher');
    await addMember(t, org, student.user.id, 'student');
    await addMember(t, org, outsider.user.id, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Other School');
    cohort = await newCohort(org, owner, 'Group A');
    await join(cohort, teacher, 'teacher');
    await join(cohort, student, 'student');
    cohortB = await newCohort(orgB, ownerB, 'Group B');
    course1 = await course('Álgebra, lineal; y más');
    course2 = await course('Historia');
  }, 90_000);

  afterAll(async () => {
    await t?.close();
  });

  describe('deadlines', () => {
    it('a teacher of the cohort sets one: 201, the course title by default, audited; a second for the course is 409', async () => {
      const due = inDays(10);
      const res = await teacher.agent.post(deadlines()).send({ course_id: course1, due_at: due }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(KEYS);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(UUID),
        cohort_id: cohort,
        course_id: course1,
        course_title: 'Álgebra, lineal; y más',
        title: 'Álgebra, lineal; y más',
        due_at: due,
        created_by: { user_id: teacher.user.id },
      });
      const [audit] = await t.db.query(
        `SELECT action, actor_id, organization_id, metadata FROM audit_log WHERE target_id = $1`,
        [res.body.id],
      );
      expect(audit).toEqual({
        action: 'cohort_deadline.created',
        actor_id: teacher.user.id,
        organization_id: org,
        metadata: { cohort_id: cohort, course_id: course1 },
      });
      const again = await admin.agent.post(deadlines()).send({ course_id: course1, due_at: inDays(3) });
      expect([again.status, again.body.error.code]).toEqual([409, 'deadline_exists']);
    });

    it('validates: a course of the catalog, due_at in the future, title 1..120', async () => {
      const restricted = await course('Elsewhere only', { restrictedTo: orgB });
      const draft = await course('Draft', { status: 'draft' });
      const bad: Record<string, unknown>[] = [
        { course_id: restricted, due_at: inDays(1) },
        { course_id: draft, due_at: inDays(1) },
        { course_id: 'nope', due_at: inDays(1) },
        { due_at: inDays(1) },
        { course_id: course2 },
        { course_id: course2, due_at: new Date(t.clock.now().getTime() - 1_000).toISOString() },
        { course_id: course2, due_at: '2030-02-30T10:00:00Z' },
        { course_id: course2, due_at: '2030-01-01' },
        { course_id: course2, due_at: inDays(1), title: '' },
        { course_id: course2, due_at: inDays(1), title: 'x'.repeat(121) },
      ];
      for (const body of bad) {
        const res = await owner.agent.post(deadlines()).send(body);
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
          body,
          status: 422,
          code: 'validation_error',
        });
      }
      expect(await t.db.query(`SELECT 1 FROM cohort_deadlines WHERE course_id = $1`, [course2])).toHaveLength(0);
      const max = await owner.agent
        .post(deadlines())
        .send({ course_id: course2, due_at: inDays(20), title: 'y'.repeat(120) })
        .expect(201);
      expect(max.body.title).toBe('y'.repeat(120));
      await owner.agent.delete(`${deadlines()}/${max.body.id}`).expect(204);
    });

    it('only owners, admins and the cohort’s teachers write; others cannot even see the cohort', async () => {
      const body = { course_id: course2, due_at: inDays(5) };
      const studentTry = await student.agent.post(deadlines()).send(body);
      expect(studentTry.status).toBe(403);
      await otherTeacher.agent.post(deadlines()).send(body).expect(404);
      await outsider.agent.post(deadlines()).send(body).expect(404);
      await otherTeacher.agent.get(deadlines()).expect(404);
      await outsider.agent.get(deadlines()).expect(404);
      await ownerB.agent.get(deadlines()).expect(404);
      await ownerB.agent.post(deadlines()).send(body).expect(404);
      // A cohort of another organization under this organization's path, and the reverse.
      await owner.agent.get(deadlines(cohortB)).expect(404);
      await owner.agent.post(deadlines(cohortB)).send(body).expect(404);
      await ownerB.agent.get(deadlines(cohort, orgB)).expect(404);
      const tokenB = await personalToken(t, ownerB, orgB, 'write');
      await bearer(t, tokenB).get(deadlines()).expect(404);
      await owner.agent.get(deadlines('not-a-uuid')).expect(404);
      expect(await t.db.query(`SELECT 1 FROM cohort_deadlines WHERE course_id = $1`, [course2])).toHaveLength(0);
    });

    it('lists by due_at; students get their status (done, upcoming, overdue)', async () => {
      const c3 = await course('Física');
      // Due in 2 minutes (moving the Clock by days would expire the sessions).
      const soon = new Date(t.clock.now().getTime() + 2 * 60_000).toISOString();
      const d3 = await owner.agent.post(deadlines()).send({ course_id: c3, due_at: soon }).expect(201);
      // The student completed course 1 before its deadline.
      await t.db.query(
        `INSERT INTO enrollments (organization_id, user_id, course_id, status, completed_at)
         VALUES ($1, $2, $3, 'completed', now())`,
        [org, student.user.id, course1],
      );
      const staff = await admin.agent.get(deadlines()).expect(200);
      expect(staff.body.items.map((d: { course_id: string }) => d.course_id)).toEqual([c3, course1]);
      expect(staff.body.items[0]).not.toHaveProperty('status');
      await teacher.agent.get(deadlines()).expect(200);
      const mine = await student.agent.get(deadlines()).expect(200);
      expect(mine.body.items.map((d: { status: string }) => d.status)).toEqual(['upcoming', 'done']);
      t.clock.advance(3 * 60_000);
      try {
        const later = await student.agent.get(deadlines()).expect(200);
        expect(later.body.items.map((d: { status: string }) => d.status)).toEqual(['overdue', 'done']);
      } finally {
        t.clock.advance(-3 * 60_000);
      }
      await owner.agent.delete(`${deadlines()}/${d3.body.id}`).expect(204);
    });

    it('patches and deletes, audited; students 403; unknown 404', async () => {
      const created = await owner.agent
        .post(deadlines())
        .send({ course_id: course2, due_at: inDays(7) })
        .expect(201);
      const url = `${deadlines()}/${created.body.id}`;
      const moved = inDays(8);
      const res = await teacher.agent.patch(url).send({ due_at: moved, title: 'Ensayo final' }).expect(200);
      expect(res.body).toMatchObject({ due_at: moved, title: 'Ensayo final', course_id: course2 });
      const titled = await teacher.agent.patch(url).send({ title: 'Ensayo' }).expect(200);
      expect(titled.body).toMatchObject({ due_at: moved, title: 'Ensayo' });
      for (const body of [{ due_at: inDays(-1) }, { title: '' }, { title: null }, { due_at: null }]) {
        const bad = await teacher.agent.patch(url).send(body);
        expect({ body, status: bad.status }).toEqual({ body, status: 422 });
      }
      await student.agent.patch(url).send({ title: 'Nope' }).expect(403);
      await student.agent.delete(url).expect(403);
      await otherTeacher.agent.delete(url).expect(404);
      await owner.agent.patch(`${deadlines()}/9b2f4d1e-7a53-4f7b-9d6c-1d2e3f4a5b6c`).send({ title: 'x' }).expect(404);
      await teacher.agent.delete(url).expect(204);
      await teacher.agent.delete(url).expect(404);
      const actions = await t.db.query<{ action: string }[]>(
        `SELECT action FROM audit_log WHERE target_id = $1 ORDER BY action`,
        [created.body.id],
      );
      expect(actions.map((a) => a.action)).toEqual([
        'cohort_deadline.created',
        'cohort_deadline.deleted',
        'cohort_deadline.updated',
        'cohort_deadline.updated',
      ]);
    });

    it('GET /organizations/{org}/deadlines: the caller’s cohorts, with status, filtered by local days', async () => {
      const other = await newCohort(org, owner, 'Group C');
      const c4 = await course('Química');
      await owner.agent
        .post(deadlines(other))
        .send({ course_id: c4, due_at: inDays(4) })
        .expect(201);
      const res = await student.agent.get(`/api/v1/organizations/${org}/deadlines`).expect(200);
      expect(res.body.items.map((d: { course_id: string }) => d.course_id)).toEqual([course1]);
      expect(res.body.items[0].status).toBe('done');
      const day = (offset: number): string => inDays(offset).slice(0, 10);
      const none = await student.agent.get(`/api/v1/organizations/${org}/deadlines?from=${day(11)}`).expect(200);
      expect(none.body.items).toEqual([]);
      const within = await student.agent
        .get(`/api/v1/organizations/${org}/deadlines?from=${day(9)}&to=${day(10)}`)
        .expect(200);
      expect(within.body.items).toHaveLength(1);
      await student.agent.get(`/api/v1/organizations/${org}/deadlines?from=${day(3)}&to=${day(2)}`).expect(422);
      await student.agent.get(`/api/v1/organizations/${org}/deadlines?from=2026-13-01`).expect(422);
      expect((await outsider.agent.get(`/api/v1/organizations/${org}/deadlines`).expect(200)).body.items).toEqual([]);
      await ownerB.agent.get(`/api/v1/organizations/${org}/deadlines`).expect(404);
    });
  });

  describe('calendar feed', () => {
    const feedPath = (url: string): string => new URL(url).pathname;

    it('is made for a session only, shown once, and reported without its address', async () => {
      const before = await student.agent.get('/api/v1/me/calendar-feed').expect(200);
      expect(before.body).toEqual({ active: false, created_at: null, last_fetched_at: null });
      const token = await personalToken(t, student, org, 'write');
      await bearer(t, token).post('/api/v1/me/calendar-feed').expect(403);
      await bearer(t, token).get('/api/v1/me/calendar-feed').expect(403);
      await bearer(t, token).delete('/api/v1/me/calendar-feed').expect(403);
      const res = await student.agent.post('/api/v1/me/calendar-feed').expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'url']);
      expect(res.body.url).toMatch(new RegExp(`^${t.baseUrl}/api/v1/calendar/[A-Za-z0-9_-]{43}\\.ics$`));
      const after = await student.agent.get('/api/v1/me/calendar-feed').expect(200);
      expect(after.body).toEqual({ active: true, created_at: res.body.created_at, last_fetched_at: null });
      expect(JSON.stringify(after.body)).not.toContain('/calendar/');
      const token43 = /calendar\/([^.]+)\.ics/.exec(res.body.url)![1];
      const [row] = await t.db.query(`SELECT token_hash FROM calendar_feeds WHERE user_id = $1`, [student.user.id]);
      expect(row.token_hash).not.toContain(token43);
      await student.agent.delete('/api/v1/me/calendar-feed').expect(204);
      await student.agent.delete('/api/v1/me/calendar-feed').expect(204);
      await t.http().get(feedPath(res.body.url)).expect(404);
    });

    it('serves RFC 5545 with exam windows and deadlines (with a one-day alarm), parsed with node-ical', async () => {
      // Exam windows: organization-wide (applies), of the student's cohort (applies), of another cohort (not), one
      // without a closing time (not), one closed 40 days ago (out of range).
      const otherCohort = await newCohort(org, owner, 'Group D');
      const [exam] = await t.db.query(
        `INSERT INTO exams (course_id, title, duration_minutes, passing_score, questions_per_attempt, status, questions)
         VALUES ($1, 'Parcial 1', 60, 50, 1, 'published', '[{}]') RETURNING id`,
        [course1],
      );
      const window = async (cohortId: string | null, opens: number, closes: number | null): Promise<string> => {
        const [w] = await t.db.query(
          `INSERT INTO exam_windows (organization_id, exam_id, cohort_id, opens_at, closes_at)
           VALUES ($1, $2, $3, $4, $5) RETURNING id`,
          [org, exam.id, cohortId, inDays(opens), closes === null ? null : inDays(closes)],
        );
        return w.id;
      };
      const orgWide = await window(null, 1, 2);
      const ofCohort = await window(cohort, 3, 4);
      await window(otherCohort, 5, 6);
      await window(null, 7, null);
      await window(null, -41, -40);
      // A deadline 200 days ahead is out of range.
      const far = await course('Lejana');
      await owner.agent
        .post(deadlines())
        .send({ course_id: far, due_at: inDays(200) })
        .expect(201);
      const [deadline] = await t.db.query(`SELECT id, due_at, updated_at FROM cohort_deadlines WHERE course_id = $1`, [
        course1,
      ]);

      const created = await student.agent.post('/api/v1/me/calendar-feed').expect(201);
      const res = await t.http().get(feedPath(created.body.url)).expect(200);
      expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
      expect(res.headers['cache-control']).toBe('private, max-age=900');
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const raw = res.text;
      // RFC 5545 framing: CRLF line ends, folded at 75 octets.
      expect(raw.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
      expect(raw.replace(/\r\n/g, '')).not.toContain('\n');
      expect(raw).toContain('\r\nPRODID:-//Learning Platform//Deadlines//ES\r\n');
      expect(raw).toContain('\r\nMETHOD:PUBLISH\r\n');
      expect(raw).toContain('\r\nX-WR-CALNAME:Learning Platform: fechas\r\n');

      const parsed = ical.sync.parseICS(raw);
      const events = Object.values(parsed).filter((c): c is VEvent => c?.type === 'VEVENT');
      const host = new URL(t.baseUrl).hostname;
      expect(events.map((e) => e.uid).sort()).toEqual(
        [`deadline-${deadline.id}@${host}`, `exam-${orgWide}@${host}`, `exam-${ofCohort}@${host}`].sort(),
      );
      const exam1 = events.find((e) => e.uid === `exam-${orgWide}@${host}`)!;
      expect(exam1.summary).toBe('Examen: Parcial 1');
      // The window as stored (the clock runs on while the test does: a second boundary may fall in between).
      const [stored] = await t.db.query(`SELECT opens_at, closes_at FROM exam_windows WHERE id = $1`, [orgWide]);
      const toSecond = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, '.000Z');
      expect(exam1.start.toISOString()).toBe(toSecond(stored.opens_at as Date));
      expect(new Date(exam1.end as Date).toISOString()).toBe(toSecond(stored.closes_at as Date));
      expect(exam1.description).toBe('Álgebra, lineal; y más · Deadline School');
      const due = events.find((e) => e.uid === `deadline-${deadline.id}@${host}`)!;
      expect(due.summary).toBe('Entrega: Álgebra, lineal; y más');
      expect(due.start.toISOString()).toBe(new Date(deadline.due_at).toISOString().replace(/\.\d{3}Z$/, '.000Z'));
      expect(new Date(due.end as Date).getTime()).toBe(due.start.getTime());
      expect(new Date(due.dtstamp).toISOString()).toBe(
        new Date(deadline.updated_at).toISOString().replace(/\.\d{3}Z$/, '.000Z'),
      );
      expect(String((due.url as unknown as { val?: string })?.val ?? due.url)).toBe(
        `http://web.test/organizations/${org}/courses/${course1}`,
      );
      // Text is escaped (commas and semicolons), times are UTC, and the deadline has its alarm.
      expect(raw).toContain('SUMMARY:Entrega: Álgebra\\, lineal\\; y más');
      expect(raw).toMatch(/DTSTART:\d{8}T\d{6}Z\r\n/);
      const alarms = Object.values((due as unknown as { alarms?: unknown[] }).alarms ?? {});
      expect(alarms).toHaveLength(1);
      expect(raw).toMatch(/BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-P1D\r\n/);

      // Conditional request, and the fetch recorded.
      await t.http().get(feedPath(created.body.url)).set('If-None-Match', res.headers.etag).expect(304);
      const status = await student.agent.get('/api/v1/me/calendar-feed').expect(200);
      expect(status.body.last_fetched_at).toEqual(expect.any(String));

      // A new address voids the old one.
      const renewed = await student.agent.post('/api/v1/me/calendar-feed').expect(201);
      const old = await t.http().get(feedPath(created.body.url)).expect(404);
      expect(old.body.error.code).toBe('not_found');
      await t.http().get(feedPath(renewed.body.url)).expect(200);
      await t.http().get('/api/v1/calendar/short.ics').expect(404);
      await t
        .http()
        .get(`/api/v1/calendar/${'A'.repeat(43)}.ics`)
        .expect(404);
    });

    it('limits a feed to 60 fetches per hour per token', async () => {
      const created = await teacher.agent.post('/api/v1/me/calendar-feed').expect(201);
      const path = feedPath(created.body.url);
      for (let i = 0; i < 60; i++) await t.client().get(path).expect(200);
      const res = await t.client().get(path);
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
    });
  });
});
