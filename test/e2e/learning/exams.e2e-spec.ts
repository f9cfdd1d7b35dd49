import { randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { EditorService } from '@/modules/learning/editor';
import type { ExamDto } from '@/modules/learning/exams';
import { signIn, type SignedIn } from '../../support/auth';
import { advance, courseWith, enroll, examBody, makeExam, member, openWindow, questions } from '../../support/exams';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MINUTE = 60_000;
const EXAM_KEYS = [
  'course_id',
  'created_at',
  'duration_minutes',
  'id',
  'instructions_md',
  'max_attempts',
  'passing_score',
  'proctoring',
  'questions',
  'questions_per_attempt',
  'required_for_completion',
  'show_results',
  'shuffle_options',
  'shuffle_questions',
  'status',
  'title',
  'updated_at',
];
const CARD_KEYS = [
  'availability',
  'course_id',
  'course_title',
  'duration_minutes',
  'id',
  'max_attempts',
  'my',
  'passing_score',
  'questions_per_attempt',
  'required_for_completion',
  'title',
];
const WINDOW_KEYS = ['closes_at', 'cohort_id', 'created_at', 'created_by', 'exam_id', 'id', 'opens_at'];

describe('exams: authoring, windows and cards', () => {
  let t: TestApp;
  let editor: SignedIn;
  let ed: TestAgent;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let student: SignedIn;
  let orgA: string;
  let orgB: string;
  let ownerB: SignedIn;
  let taught: string;
  let untaught: string;
  let cohortB: string;

  const iso = (ms: number): string => new Date(ms).toISOString();
  const editorExams = (courseId: string): string => `/api/v1/editor/courses/${courseId}/exams`;
  const orgExams = (org = orgA): string => `/api/v1/organizations/${org}/exams`;
  const windows = (examId: string, org = orgA): string => `${orgExams(org)}/${examId}/windows`;
  async function course(spec: Parameters<typeof courseWith>[2] = {}): Promise<string> {
    return (await courseWith(t, editor.user.id, spec)).id;
  }
  async function audits(
    targetId: string,
  ): Promise<
    { action: string; organization_id: string | null; actor_id: string; metadata: Record<string, unknown> }[]
  > {
    return t.db.query(
      `SELECT action, organization_id, actor_id, metadata FROM audit_log WHERE target_id = $1 ORDER BY created_at, action`,
      [targetId],
    );
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'exam-editor@platform.test' } });
    editor = await signIn(t, 'exam-editor@platform.test');
    ed = editor.agent;
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Cards A');
    admin = await member(t, orgA, 'admin');
    teacher = await member(t, orgA, 'teacher');
    otherTeacher = await member(t, orgA, 'teacher');
    student = await member(t, orgA, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Cards B');
    const cohorts = t.app.get(CohortsService);
    taught = (await cohorts.create(orgA, { name: 'Taught' }, owner.user.id)).id;
    untaught = (await cohorts.create(orgA, { name: 'Untaught' }, owner.user.id)).id;
    cohortB = (await cohorts.create(orgB, { name: 'Of B' }, ownerB.user.id)).id;
    await cohorts.addMember(orgA, taught, teacher.user.id, 'teacher');
    await cohorts.addMember(orgA, untaught, otherTeacher.user.id, 'teacher');
  });
  afterAll(() => t.close());

  describe('editor authoring', () => {
    it('create: 201 with the defaults and ids for the pool; audited without an organization', async () => {
      const c = await course();
      const res = await ed
        .post(editorExams(c))
        .send({
          title: '  Midterm  ',
          duration_minutes: 45,
          passing_score: 60,
          questions_per_attempt: 2,
          questions: [
            ...questions(2),
            {
              prompt: 'Pick the even ones',
              kind: 'multiple',
              options: [
                { text: '2', correct: true },
                { text: '3', correct: false },
                { text: '4', correct: true },
              ],
              explanation: '   ',
            },
            {
              prompt: 'The sky is green',
              kind: 'true_false',
              options: [
                { text: 'True', correct: false },
                { text: 'False', correct: true },
              ],
            },
          ],
        })
        .expect(201);
      const exam = res.body;
      expect(Object.keys(exam).sort()).toEqual(EXAM_KEYS);
      expect(exam).toMatchObject({
        id: expect.stringMatching(UUID),
        course_id: c,
        title: 'Midterm',
        instructions_md: '',
        duration_minutes: 45,
        passing_score: 60,
        questions_per_attempt: 2,
        max_attempts: 1,
        shuffle_questions: true,
        shuffle_options: true,
        show_results: 'score',
        required_for_completion: false,
        proctoring: { fullscreen_required: false, max_focus_losses: 3, flag_paste: true },
        status: 'draft',
        created_at: expect.stringMatching(ISO),
      });
      expect(exam.updated_at).toBe(exam.created_at);
      expect(exam.questions.map((q: { position: number }) => q.position)).toEqual([1, 2, 3, 4]);
      expect(exam.questions[0]).toEqual({
        id: expect.stringMatching(UUID),
        position: 1,
        prompt: 'Q1?',
        kind: 'single',
        explanation: 'Because Q1.',
        options: [
          { id: expect.stringMatching(UUID), position: 1, text: 'right', correct: true },
          { id: expect.stringMatching(UUID), position: 2, text: 'wrong', correct: false },
          { id: expect.stringMatching(UUID), position: 3, text: 'other', correct: false },
        ],
      });
      expect(exam.questions[2].explanation).toBeNull();
      expect(exam.questions[3].explanation).toBeNull();
      const ids = exam.questions.flatMap((q: { id: string; options: { id: string }[] }) => [
        q.id,
        ...q.options.map((o) => o.id),
      ]);
      expect(new Set(ids).size).toBe(ids.length);
      expect(await audits(exam.id)).toEqual([
        {
          action: 'exam.created',
          organization_id: null,
          actor_id: editor.user.id,
          metadata: { course_id: c, status: 'draft', questions: 4 },
        },
      ]);
      const fetched = await ed.get(`${editorExams(c)}/${exam.id}`).expect(200);
      expect(fetched.body).toEqual(exam);
      const list = await ed.get(editorExams(c)).expect(200);
      expect(list.body).toEqual({ items: [exam] });
    });

    it('403 without the editor role, 401 without a credential; 404 for unknown and malformed courses and exams', async () => {
      const c = await course();
      const exam = await makeExam(t, c, editor.user.id);
      for (const [method, path] of [
        ['get', editorExams(c)],
        ['post', editorExams(c)],
        ['get', `${editorExams(c)}/${exam.id}`],
        ['patch', `${editorExams(c)}/${exam.id}`],
        ['delete', `${editorExams(c)}/${exam.id}`],
      ] as const) {
        const res = await owner.agent[method](path).send(examBody()).expect(403);
        expect(res.body.error.code).toBe('forbidden');
        await t.http()[method](path).expect(401);
      }
      const other = await course();
      const unknown = '9a7c3c1e-2f6b-4f0e-8a51-5c1b2d3e4f50';
      for (const path of [
        editorExams(unknown),
        editorExams('not-a-uuid'),
        `${editorExams(other)}/${exam.id}`,
        `${editorExams(c)}/${unknown}`,
        `${editorExams(c)}/nope`,
      ]) {
        expect((await ed.get(path).expect(404)).body.error.code).toBe('not_found');
      }
      await ed.post(editorExams(unknown)).send(examBody()).expect(404);
    });

    it('422 for each broken rule, naming the field; nothing created', async () => {
      const c = await course();
      const q = questions(1)[0];
      const cases: [object, string][] = [
        [{ questions_per_attempt: 7 }, 'questions_per_attempt'],
        [{ questions: [{ ...q, kind: 'true_false' }], questions_per_attempt: 1 }, 'questions.0.options'],
        [
          {
            questions: [
              {
                ...q,
                options: [
                  { text: 'a', correct: true },
                  { text: 'b', correct: true },
                ],
              },
            ],
            questions_per_attempt: 1,
          },
          'questions.0.options',
        ],
        [
          {
            questions: [
              {
                ...q,
                kind: 'multiple',
                options: [
                  { text: 'a', correct: false },
                  { text: 'b', correct: false },
                ],
              },
            ],
            questions_per_attempt: 1,
          },
          'questions.0.options',
        ],
        [
          {
            questions: [
              {
                ...q,
                options: [
                  { text: 'Same', correct: true },
                  { text: ' same ', correct: false },
                ],
              },
            ],
            questions_per_attempt: 1,
          },
          'questions.0.options',
        ],
        [
          { questions: [{ ...q, options: [{ text: 'a', correct: true }] }], questions_per_attempt: 1 },
          'questions.0.options',
        ],
        [
          {
            questions: [{ ...q, options: Array.from({ length: 11 }, (_, i) => ({ text: `o${i}`, correct: i === 0 })) }],
            questions_per_attempt: 1,
          },
          'questions.0.options',
        ],
        [{ questions: [] }, 'questions'],
        [{ questions: questions(501), questions_per_attempt: 1 }, 'questions'],
        [{ questions_per_attempt: 201, questions: questions(300) }, 'questions_per_attempt'],
        [{ questions_per_attempt: 0 }, 'questions_per_attempt'],
        [{ duration_minutes: 0 }, 'duration_minutes'],
        [{ duration_minutes: 601 }, 'duration_minutes'],
        [{ passing_score: 101 }, 'passing_score'],
        [{ passing_score: -1 }, 'passing_score'],
        [{ max_attempts: 0 }, 'max_attempts'],
        [{ max_attempts: 11 }, 'max_attempts'],
        [{ show_results: 'all' }, 'show_results'],
        [{ status: 'archived' }, 'status'],
        [{ proctoring: { max_focus_losses: 101 } }, 'proctoring.max_focus_losses'],
        [{ proctoring: { webcam: true } }, 'proctoring.webcam'],
        [{ title: '' }, 'title'],
        [{ title: 'x'.repeat(201) }, 'title'],
        [{ instructions_md: null }, 'instructions_md'],
        [{ instructions_md: 'x'.repeat(20001) }, 'instructions_md'],
        [{ owner_id: editor.user.id }, 'owner_id'],
      ];
      for (const [over, field] of cases) {
        const res = await ed
          .post(editorExams(c))
          .send({ ...examBody(), ...over })
          .expect(422);
        expect(res.body.error.code).toBe('validation_error');
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      expect((await ed.get(editorExams(c)).expect(200)).body.items).toEqual([]);
    });

    it('a pool of exactly 500 questions with 200 per attempt is accepted', async () => {
      const c = await course();
      const res = await ed
        .post(editorExams(c))
        .send({ ...examBody(), questions: questions(500), questions_per_attempt: 200 })
        .expect(201);
      expect(res.body.questions).toHaveLength(500);
    });

    it('at most 20 exams per course: the 21st is 409 exam_limit_reached, also under concurrent creation', async () => {
      const c = await course();
      for (let i = 0; i < 18; i++) await makeExam(t, c, editor.user.id, { title: `Exam ${i}` });
      const results = await Promise.all([0, 1, 2].map(() => ed.post(editorExams(c)).send(examBody())));
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409]);
      expect(results.find((r) => r.status === 409)!.body.error.code).toBe('exam_limit_reached');
      expect((await ed.get(editorExams(c)).expect(200)).body.items).toHaveLength(20);
    });

    it('PATCH changes only what is sent, merges proctoring, replaces the pool with new ids; the result must hold; audited', async () => {
      const c = await course();
      const exam = await makeExam(t, c, editor.user.id, { questions: questions(6), questions_per_attempt: 4 });
      const path = `${editorExams(c)}/${exam.id}`;
      t.clock.advance(1_000);
      const res = await ed
        .patch(path)
        .send({
          title: 'Renamed',
          proctoring: { flag_paste: false },
          show_results: 'full',
          required_for_completion: true,
        })
        .expect(200);
      expect(res.body).toMatchObject({
        title: 'Renamed',
        show_results: 'full',
        required_for_completion: true,
        proctoring: { fullscreen_required: false, max_focus_losses: 3, flag_paste: false },
        questions: exam.questions,
        duration_minutes: exam.duration_minutes,
      });
      expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(exam.updated_at));
      const shrink = await ed
        .patch(path)
        .send({ questions: questions(3) })
        .expect(422);
      expect(shrink.body.error.details).toEqual([{ field: 'questions_per_attempt', message: expect.any(String) }]);
      const replaced = await ed
        .patch(path)
        .send({ questions: questions(5, 'R'), questions_per_attempt: 5 })
        .expect(200);
      expect(replaced.body.questions.map((q: { prompt: string }) => q.prompt)).toEqual([
        'R1?',
        'R2?',
        'R3?',
        'R4?',
        'R5?',
      ]);
      const before = new Set(exam.questions.map((q) => q.id));
      expect(replaced.body.questions.some((q: { id: string }) => before.has(q.id))).toBe(false);
      for (const body of [{ title: null }, { proctoring: null }, { questions: [] }, { status: 'closed' }]) {
        expect((await ed.patch(path).send(body).expect(422)).body.error.code).toBe('validation_error');
      }
      const same = await ed.patch(path).send({}).expect(200);
      expect(same.body).toEqual(replaced.body);
      const entries = await audits(exam.id);
      expect(entries.map((e) => e.action)).toEqual(['exam.created', 'exam.updated', 'exam.updated']);
      expect(entries[1]).toMatchObject({
        organization_id: null,
        actor_id: editor.user.id,
        metadata: {
          course_id: c,
          fields: ['title', 'proctoring', 'show_results', 'required_for_completion'],
          status: 'published',
        },
      });
    });

    it('DELETE: 204 and audited; 404 after; 409 exam_in_use once anyone has a session, even after unpublishing', async () => {
      const c = await course();
      const unused = await makeExam(t, c, editor.user.id);
      await openWindow(t, orgA, owner.user.id, unused.id);
      await ed.delete(`${editorExams(c)}/${unused.id}`).expect(204);
      expect((await audits(unused.id)).map((a) => a.action)).toEqual(['exam.created', 'exam.deleted']);
      await ed.delete(`${editorExams(c)}/${unused.id}`).expect(404);
      expect(await t.db.query(`SELECT 1 FROM exam_windows WHERE exam_id = $1`, [unused.id])).toHaveLength(0);

      const used = await makeExam(t, c, editor.user.id);
      await openWindow(t, orgA, owner.user.id, used.id);
      const s = await member(t, orgA);
      await enroll(s, orgA, c);
      await s.agent.post(`${orgExams()}/${used.id}/sessions`).expect(201);
      await ed
        .patch(`${editorExams(c)}/${used.id}`)
        .send({ status: 'draft' })
        .expect(200);
      const res = await ed.delete(`${editorExams(c)}/${used.id}`).expect(409);
      expect(res.body.error.code).toBe('exam_in_use');
      await ed.get(`${editorExams(c)}/${used.id}`).expect(200);
    });
  });

  describe('windows', () => {
    let exam: ExamDto;
    beforeAll(async () => {
      exam = await makeExam(t, await course(), editor.user.id);
    });

    it('an owner opens an organization-wide window: 201, audited with the organization', async () => {
      const opens = t.clock.nowMs() + 60 * MINUTE;
      const res = await owner.agent
        .post(windows(exam.id))
        .send({ cohort_id: null, opens_at: iso(opens), closes_at: iso(opens + 90 * MINUTE) })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(WINDOW_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        exam_id: exam.id,
        cohort_id: null,
        opens_at: iso(opens),
        closes_at: iso(opens + 90 * MINUTE),
        created_by: { user_id: owner.user.id },
        created_at: expect.stringMatching(ISO),
      });
      expect(await audits(res.body.id)).toEqual([
        {
          action: 'exam_window.created',
          organization_id: orgA,
          actor_id: owner.user.id,
          metadata: { exam_id: exam.id, cohort_id: null },
        },
      ]);
      // Times with an offset are instants; an absent closes_at is open-ended.
      const offset = await admin.agent
        .post(windows(exam.id))
        .send({ opens_at: '2026-12-01T10:00:00+02:00' })
        .expect(201);
      expect(offset.body).toMatchObject({ opens_at: '2026-12-01T08:00:00.000Z', closes_at: null, cohort_id: null });
    });

    it('a teacher opens windows for the cohorts they teach only (403 for others and for organization-wide ones); students 403', async () => {
      const body = { opens_at: iso(t.clock.nowMs()) };
      const ok = await teacher.agent
        .post(windows(exam.id))
        .send({ ...body, cohort_id: taught })
        .expect(201);
      expect(ok.body.cohort_id).toBe(taught);
      for (const cohort_id of [untaught, null]) {
        expect(
          (
            await teacher.agent
              .post(windows(exam.id))
              .send({ ...body, cohort_id })
              .expect(403)
          ).body.error.code,
        ).toBe('forbidden');
      }
      await student.agent.post(windows(exam.id)).send(body).expect(403);
      await student.agent.get(windows(exam.id)).expect(403);
    });

    it('404 for a cohort of another organization, a draft exam, an unknown exam; 422 for times out of order or malformed', async () => {
      const body = { opens_at: iso(t.clock.nowMs()) };
      expect(
        (
          await owner.agent
            .post(windows(exam.id))
            .send({ ...body, cohort_id: cohortB })
            .expect(404)
        ).body.error.code,
      ).toBe('not_found');
      const draft = await makeExam(t, await course(), editor.user.id, { status: 'draft' });
      await owner.agent.post(windows(draft.id)).send(body).expect(404);
      await owner.agent.get(windows(draft.id)).expect(404);
      await owner.agent.post(windows('5c2e4f1a-1b2c-4d3e-8f90-a1b2c3d4e5f6')).send(body).expect(404);
      await owner.agent.post(windows('x')).send(body).expect(404);
      const opens = t.clock.nowMs();
      for (const bad of [
        { opens_at: iso(opens), closes_at: iso(opens) },
        { opens_at: iso(opens), closes_at: iso(opens - 1) },
        { opens_at: '2026-12-01' },
        { opens_at: '2026-12-01T10:00:00' },
        { opens_at: 'tomorrow' },
        {},
        { ...body, cohort_id: 'x' },
        { ...body, created_by: owner.user.id },
      ]) {
        expect((await owner.agent.post(windows(exam.id)).send(bad).expect(422)).body.error.code).toBe(
          'validation_error',
        );
      }
    });

    it('list: owners and admins see every window, a teacher the organization-wide ones and those of their cohorts', async () => {
      const e = await makeExam(t, await course(), editor.user.id);
      const wide = await openWindow(t, orgA, owner.user.id, e.id);
      const mine = await openWindow(t, orgA, owner.user.id, e.id, { cohort_id: taught });
      const theirs = await openWindow(t, orgA, owner.user.id, e.id, { cohort_id: untaught });
      const ids = async (who: SignedIn): Promise<string[]> =>
        (await who.agent.get(windows(e.id)).expect(200)).body.items.map((w: { id: string }) => w.id).sort();
      expect(await ids(owner)).toEqual([wide, mine, theirs].sort());
      expect(await ids(admin)).toEqual([wide, mine, theirs].sort());
      expect(await ids(teacher)).toEqual([wide, mine].sort());
      expect(await ids(otherTeacher)).toEqual([wide, theirs].sort());
      // Another organization sees none of them.
      expect((await ownerB.agent.get(windows(e.id, orgB)).expect(200)).body.items).toEqual([]);
    });

    it('PATCH moves a window (null makes it open-ended), keeps the order rule, and is audited; teachers only for their cohorts', async () => {
      const e = await makeExam(t, await course(), editor.user.id);
      const opens = t.clock.nowMs();
      const wide = await openWindow(t, orgA, owner.user.id, e.id, {
        opens_at: iso(opens),
        closes_at: iso(opens + MINUTE),
      });
      const res = await owner.agent
        .patch(`${windows(e.id)}/${wide}`)
        .send({ closes_at: iso(opens + 30 * MINUTE) })
        .expect(200);
      expect(res.body).toMatchObject({ opens_at: iso(opens), closes_at: iso(opens + 30 * MINUTE) });
      const open = await owner.agent
        .patch(`${windows(e.id)}/${wide}`)
        .send({ closes_at: null })
        .expect(200);
      expect(open.body.closes_at).toBeNull();
      const order = await owner.agent
        .patch(`${windows(e.id)}/${wide}`)
        .send({ opens_at: iso(opens + 10 * MINUTE), closes_at: iso(opens + 5 * MINUTE) })
        .expect(422);
      expect(order.body.error.details).toEqual([{ field: 'closes_at', message: 'closes_at must be after opens_at' }]);
      await owner.agent
        .patch(`${windows(e.id)}/${wide}`)
        .send({ opens_at: null })
        .expect(422);
      await owner.agent
        .patch(`${windows(e.id)}/${wide}`)
        .send({ cohort_id: taught })
        .expect(422);
      expect(
        (
          await teacher.agent
            .patch(`${windows(e.id)}/${wide}`)
            .send({ closes_at: null })
            .expect(403)
        ).body.error.code,
      ).toBe('forbidden');
      const cohortWindow = await openWindow(t, orgA, owner.user.id, e.id, { cohort_id: taught });
      await teacher.agent
        .patch(`${windows(e.id)}/${cohortWindow}`)
        .send({ opens_at: iso(opens + MINUTE) })
        .expect(200);
      await otherTeacher.agent
        .patch(`${windows(e.id)}/${cohortWindow}`)
        .send({ opens_at: iso(opens) })
        .expect(403);
      await owner.agent
        .patch(`${windows(e.id)}/5c2e4f1a-1b2c-4d3e-8f90-a1b2c3d4e5f6`)
        .send({ closes_at: null })
        .expect(404);
      expect((await audits(wide)).map((a) => a.action)).toEqual([
        'exam_window.created',
        'exam_window.updated',
        'exam_window.updated',
      ]);
    });

    it('DELETE: 204, audited, 404 after; a session already started keeps its deadline', async () => {
      const c = await course();
      const e = await makeExam(t, c, editor.user.id, { duration_minutes: 60 });
      const opens = t.clock.nowMs() - MINUTE;
      const w = await openWindow(t, orgA, owner.user.id, e.id, {
        opens_at: iso(opens),
        closes_at: iso(opens + 11 * MINUTE),
      });
      const s = await member(t, orgA);
      await enroll(s, orgA, c);
      const session = (await s.agent.post(`${orgExams()}/${e.id}/sessions`).expect(201)).body;
      expect(Date.parse(session.deadline_at)).toBe(opens + 11 * MINUTE);
      await owner.agent
        .patch(`${windows(e.id)}/${w}`)
        .send({ closes_at: iso(opens + 2 * MINUTE) })
        .expect(200);
      await teacher.agent.delete(`${windows(e.id)}/${w}`).expect(403);
      await owner.agent.delete(`${windows(e.id)}/${w}`).expect(204);
      await owner.agent.delete(`${windows(e.id)}/${w}`).expect(404);
      expect((await audits(w)).map((a) => a.action)).toEqual([
        'exam_window.created',
        'exam_window.updated',
        'exam_window.deleted',
      ]);
      const read = await s.agent.get(`${orgExams()}/${e.id}/sessions/${session.id}`).expect(200);
      expect(read.body).toMatchObject({ status: 'in_progress', deadline_at: session.deadline_at });
    });
  });

  describe('cards', () => {
    let learner: SignedIn;
    let inCohort: SignedIn;
    let alpha: string;
    let beta: string;
    let restricted: string;
    let unpublished: string;
    const made: Record<string, ExamDto> = {};

    beforeAll(async () => {
      const tag = randomBytes(3).toString('hex');
      alpha = await course({ title: `Alpha ${tag}` });
      beta = await course({ title: `Beta ${tag}` });
      restricted = await course({ title: `Restricted ${tag}`, visibility: 'restricted', organization_ids: [orgB] });
      unpublished = await course({ title: `Gone ${tag}` });
      made.b2 = await makeExam(t, beta, editor.user.id, { title: 'Zeta' });
      made.b1 = await makeExam(t, beta, editor.user.id, { title: 'Eta' });
      made.a1 = await makeExam(t, alpha, editor.user.id, {
        title: 'Theta',
        max_attempts: 3,
        instructions_md: '# Rules',
      });
      made.draft = await makeExam(t, alpha, editor.user.id, { title: 'Draft', status: 'draft' });
      made.r = await makeExam(t, restricted, editor.user.id, { title: 'Restricted' });
      made.u = await makeExam(t, unpublished, editor.user.id, { title: 'Unpublished' });
      learner = await member(t, orgA);
      inCohort = await member(t, orgA);
      await t.app.get(CohortsService).addMember(orgA, taught, inCohort.user.id, 'student');
      for (const s of [learner, inCohort]) {
        await enroll(s, orgA, alpha);
        await enroll(s, orgA, unpublished);
      }
      await t.app.get(EditorService).unpublish(unpublished, editor.user.id);
    });

    const titles = async (who: SignedIn, query = ''): Promise<string[]> => {
      const res = await who.agent.get(`${orgExams()}${query}`).expect(200);
      return res.body.items
        .filter((c: { course_id: string }) => [alpha, beta, restricted, unpublished].includes(c.course_id))
        .map((c: { title: string }) => c.title);
    };

    it('published exams of reachable courses, by course title then exam title; the enrolled keep those of an unpublished course', async () => {
      const res = await learner.agent.get(`${orgExams()}?limit=200`).expect(200);
      expect(res.body).toMatchObject({ limit: 200, offset: 0 });
      for (const card of res.body.items) expect(Object.keys(card).sort()).toEqual(CARD_KEYS);
      expect(await titles(learner, '?limit=200')).toEqual(['Theta', 'Eta', 'Zeta', 'Unpublished']);
      expect(await titles(owner, '?limit=200')).toEqual(['Theta', 'Eta', 'Zeta']);
      expect(await titles(owner, `?course_id=${beta}`)).toEqual(['Eta', 'Zeta']);
      const page = await owner.agent.get(`${orgExams()}?course_id=${beta}&limit=1&offset=1`).expect(200);
      expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
      expect(page.body.items.map((c: { title: string }) => c.title)).toEqual(['Zeta']);
      expect(await titles(owner, `?course_id=${restricted}`)).toEqual([]);
      const inB = await ownerB.agent.get(`${orgExams(orgB)}?course_id=${restricted}`).expect(200);
      expect(inB.body.items.map((c: { title: string }) => c.title)).toEqual(['Restricted']);
      for (const q of ['?course_id=x', '?limit=0', '?offset=-1', '?status=draft']) {
        expect((await owner.agent.get(`${orgExams()}${q}`).expect(422)).body.error.code).toBe('validation_error');
      }
    });

    it('availability per learner: not_scheduled, upcoming, open, closed; cohort windows apply to the cohort’s students only', async () => {
      const state = async (
        who: SignedIn,
      ): Promise<{ state: string; opens_at: string | null; closes_at: string | null }> =>
        (await who.agent.get(`${orgExams()}/${made.b1.id}`).expect(200)).body.availability;
      expect(await state(learner)).toEqual({ state: 'not_scheduled', opens_at: null, closes_at: null });
      const now = t.clock.nowMs();
      const soon = now + 10 * MINUTE;
      await openWindow(t, orgA, owner.user.id, made.b1.id, {
        cohort_id: taught,
        opens_at: iso(now - MINUTE),
        closes_at: iso(now + 5 * MINUTE),
      });
      await openWindow(t, orgA, owner.user.id, made.b1.id, { opens_at: iso(soon), closes_at: iso(soon + MINUTE) });
      expect(await state(learner)).toEqual({ state: 'upcoming', opens_at: iso(soon), closes_at: iso(soon + MINUTE) });
      expect(await state(inCohort)).toEqual({
        state: 'open',
        opens_at: iso(now - MINUTE),
        closes_at: iso(now + 5 * MINUTE),
      });
      await advance(t, 12 * MINUTE, owner, admin, teacher, otherTeacher, learner, inCohort, ownerB);
      expect((await state(learner)).state).toBe('closed');
      expect(await state(inCohort)).toEqual({ state: 'closed', opens_at: iso(soon), closes_at: iso(soon + MINUTE) });
    });

    it('my: attempts used and left, best score, passed, the session in progress; an overdue session is closed by the read', async () => {
      await openWindow(t, orgA, owner.user.id, made.a1.id);
      const my = async (): Promise<Record<string, unknown>> =>
        (await learner.agent.get(`${orgExams()}/${made.a1.id}`).expect(200)).body.my;
      expect(await my()).toEqual({
        attempts_used: 0,
        attempts_left: 3,
        best_score: null,
        passed: false,
        active_session_id: null,
      });
      const first = (await learner.agent.post(`${orgExams()}/${made.a1.id}/sessions`).expect(201)).body;
      expect(await my()).toEqual({
        attempts_used: 1,
        attempts_left: 2,
        best_score: null,
        passed: false,
        active_session_id: first.id,
      });
      const right = new Map(made.a1.questions.map((q) => [q.id, q.options.find((o) => o.correct)!.id]));
      for (const q of first.questions.slice(0, 2)) {
        await learner.agent
          .put(`${orgExams()}/${made.a1.id}/sessions/${first.id}/answers/${q.id}`)
          .send({ option_ids: [right.get(q.id)], seq: 1 })
          .expect(200);
      }
      // Past the deadline and its grace: the card read closes and grades it (2 of 4 = 50, passing 50).
      await advance(t, 31 * MINUTE, owner, admin, teacher, otherTeacher, learner, inCohort, ownerB);
      expect(await my()).toEqual({
        attempts_used: 1,
        attempts_left: 2,
        best_score: 50,
        passed: true,
        active_session_id: null,
      });
      const listed = await learner.agent.get(`${orgExams()}?course_id=${alpha}`).expect(200);
      expect(listed.body.items[0].my).toMatchObject({ best_score: 50, passed: true });
    });

    it('the single read adds instructions, proctoring and windows (learners: those applying; owners: all; teachers: also their cohorts’)', async () => {
      const e = made.b2;
      const wide = await openWindow(t, orgA, owner.user.id, e.id);
      const forTaught = await openWindow(t, orgA, owner.user.id, e.id, { cohort_id: taught });
      const forUntaught = await openWindow(t, orgA, owner.user.id, e.id, { cohort_id: untaught });
      const read = async (who: SignedIn): Promise<{ windows: { id: string }[]; [k: string]: unknown }> =>
        (await who.agent.get(`${orgExams()}/${e.id}`).expect(200)).body;
      const detail = await read(learner);
      expect(Object.keys(detail).sort()).toEqual([...CARD_KEYS, 'instructions_md', 'proctoring', 'windows'].sort());
      expect(detail).toMatchObject({
        course_title: expect.stringContaining('Beta'),
        instructions_md: '',
        proctoring: { fullscreen_required: false, max_focus_losses: 3, flag_paste: true },
      });
      const ids = (d: { windows: { id: string }[] }): string[] => d.windows.map((w) => w.id).sort();
      expect(ids(detail)).toEqual([wide]);
      expect(ids(await read(inCohort))).toEqual([wide, forTaught].sort());
      expect(ids(await read(owner))).toEqual([wide, forTaught, forUntaught].sort());
      expect(ids(await read(teacher))).toEqual([wide, forTaught].sort());
      expect((await read(learner)).windows[0]).toMatchObject({ created_by: { user_id: owner.user.id } });
      for (const id of [made.draft.id, made.r.id, 'x', '5c2e4f1a-1b2c-4d3e-8f90-a1b2c3d4e5f6']) {
        expect((await learner.agent.get(`${orgExams()}/${id}`).expect(404)).body.error.code).toBe('not_found');
      }
      // An owner not enrolled in the unpublished course no longer reaches its exam; the enrolled learner does.
      await owner.agent.get(`${orgExams()}/${made.u.id}`).expect(404);
      await learner.agent.get(`${orgExams()}/${made.u.id}`).expect(200);
    });
  });
});
