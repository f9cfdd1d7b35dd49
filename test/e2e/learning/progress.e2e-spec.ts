import { EditorService } from '@/modules/learning/editor';
import { ProgressService } from '@/modules/learning/progress';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse, ONE_QUESTION_QUIZ } from '../../cross-tenant/learning.routes';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CODE = /^CRS-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}$/;
const ENROLLMENT_KEYS = ['completed_at', 'course_id', 'enrolled_at', 'exams', 'last_activity_at', 'progress', 'status'];

/** A quiz with one question of each kind. */
const MIXED_QUIZ = {
  passing_score: 60,
  questions: [
    {
      prompt: 'Single',
      kind: 'single',
      options: [
        { text: 'right', correct: true },
        { text: 'wrong', correct: false },
        { text: 'also wrong', correct: false },
      ],
      explanation: 'Because.',
    },
    {
      prompt: 'Multiple',
      kind: 'multiple',
      options: [
        { text: 'm1', correct: true },
        { text: 'm2', correct: true },
        { text: 'm3', correct: false },
      ],
    },
    {
      prompt: 'True or false',
      kind: 'true_false',
      options: [
        { text: 'True', correct: false },
        { text: 'False', correct: true },
      ],
      explanation: 'It is false.',
    },
  ],
} as const;

describe('progress (enrollment, completion, quizzes)', () => {
  let t: TestApp;
  let author: SignedIn;
  let owner: SignedIn;
  let orgA: string;
  let orgB: string;
  let ownerB: SignedIn;

  const courses = (org = orgA): string => `/api/v1/organizations/${org}/courses`;
  const enroll = (s: SignedIn, c: MadeCourse, org = orgA) => s.agent.post(`${courses(org)}/${c.id}/enroll`);
  const complete = (s: SignedIn, c: MadeCourse, i: number, org = orgA) =>
    s.agent.post(`${courses(org)}/${c.id}/lessons/${c.lessons[i].id}/complete`);
  const submit = (s: SignedIn, c: MadeCourse, i: number, answers: object[], org = orgA) =>
    s.agent.post(`${courses(org)}/${c.id}/lessons/${c.lessons[i].id}/quiz/submissions`).send({ answers });
  async function student(org = orgA): Promise<SignedIn> {
    const s = await adult(t);
    await addMember(t, org, s.user.id, 'student');
    return s;
  }
  async function certificates(
    userId: string,
  ): Promise<
    { code: string; organization_id: string; course_id: string; title: string; type: string; status: string }[]
  > {
    return t.db.query(
      `SELECT code, organization_id, course_id, title, type, status, holder_name FROM issued_certificates WHERE user_id = $1 ORDER BY issued_at`,
      [userId],
    );
  }
  const correctOf = (c: MadeCourse, lesson: number, question: number): string[] =>
    c.lessons[lesson].quiz!.questions[question].options.filter((o) => o.correct).map((o) => o.id);
  const wrongOf = (c: MadeCourse, lesson: number, question: number): string[] =>
    c.lessons[lesson].quiz!.questions[question].options.filter((o) => !o.correct).map((o) => o.id);
  const qid = (c: MadeCourse, lesson: number, question: number): string =>
    c.lessons[lesson].quiz!.questions[question].id;

  beforeAll(async () => {
    t = await createTestApp();
    author = await adult(t);
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
  });
  afterAll(() => t.close());

  describe('enroll', () => {
    it('201 with the enrollment, then 200 with the same record; counted in plan usage', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Enroll me', lessons: [{ title: 'a' }, { title: 'b' }] });
      const s = await student();
      const before = (await owner.agent.get(`/api/v1/organizations/${orgA}/usage`).expect(200)).body.courses_enrolled;
      const created = await enroll(s, c).expect(201);
      expect(Object.keys(created.body).sort()).toEqual(ENROLLMENT_KEYS);
      expect(created.body).toEqual({
        course_id: c.id,
        status: 'active',
        progress: { completed_lessons: 0, total_lessons: 2, percent: 0 },
        exams: { required: 0, passed: 0 },
        enrolled_at: expect.stringMatching(ISO),
        completed_at: null,
        last_activity_at: created.body.enrolled_at,
      });
      const again = await s.agent.post(`${courses()}/${c.slug}/enroll`).expect(200);
      expect(again.body).toEqual(created.body);
      const after = (await owner.agent.get(`/api/v1/organizations/${orgA}/usage`).expect(200)).body.courses_enrolled;
      expect(after).toBe(before + 1);
    });

    it('two parallel enrolls make one enrollment (one 201, one 200)', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Race' });
      const s = await student();
      const results = await Promise.all([enroll(s, c), enroll(s, c), enroll(s, c)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
      expect(new Set(results.map((r) => r.body.enrolled_at)).size).toBe(1);
      const rows = await t.db.query(`SELECT 1 FROM enrollments WHERE user_id = $1 AND course_id = $2`, [
        s.user.id,
        c.id,
      ]);
      expect(rows).toHaveLength(1);
    });

    it("404 for drafts, unpublished courses, other organizations' restricted courses and unknown courses", async () => {
      const s = await student();
      const draft = await makeCourse(t, author.user.id, { title: 'Draft', publish: false });
      const gone = await makeCourse(t, author.user.id, { title: 'Gone' });
      await t.app.get(EditorService).unpublish(gone.id, author.user.id);
      const forB = await makeCourse(t, author.user.id, {
        title: 'For B',
        visibility: 'restricted',
        organization_ids: [orgB],
      });
      for (const c of [draft, gone, forB]) {
        const res = await enroll(s, c).expect(404);
        expect(res.body.error.code).toBe('not_found');
      }
      await s.agent.post(`${courses()}/6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11/enroll`).expect(404);
      await enroll(ownerB, forB, orgB).expect(201);
    });

    it('a read-only token cannot enroll, complete or submit (403 credential_read_only)', async () => {
      const c = await makeCourse(t, author.user.id, {
        title: 'RO',
        lessons: [{ title: 'q', quiz: ONE_QUESTION_QUIZ }],
      });
      await enroll(owner, c).expect(201);
      const ro = bearer(t, await personalToken(t, owner, orgA, 'read'));
      for (const path of [
        `${courses()}/${c.id}/enroll`,
        `${courses()}/${c.id}/lessons/${c.lessons[0].id}/complete`,
        `${courses()}/${c.id}/lessons/${c.lessons[0].id}/quiz/submissions`,
      ]) {
        const res = await ro.post(path).send({ answers: [] });
        expect([path, res.status, res.body.error.code]).toEqual([path, 403, 'credential_read_only']);
      }
      await ro.get(`/api/v1/organizations/${orgA}/progress`).expect(200);
    });
  });

  describe('quiz submissions', () => {
    let c: MadeCourse;
    let s: SignedIn;
    beforeAll(async () => {
      c = await makeCourse(t, author.user.id, {
        title: 'Quizzes',
        lessons: [{ title: 'quiz', quiz: MIXED_QUIZ as never }, { title: 'plain' }],
      });
      s = await student();
      await enroll(s, c).expect(201);
    });

    it('all right: 201 with score 100, passed, correct options and explanations', async () => {
      const res = await submit(s, c, 0, [
        { question_id: qid(c, 0, 0), option_ids: correctOf(c, 0, 0) },
        { question_id: qid(c, 0, 1), option_ids: correctOf(c, 0, 1) },
        { question_id: qid(c, 0, 2), option_ids: correctOf(c, 0, 2) },
      ]).expect(201);
      expect(res.body).toEqual({
        score: 100,
        passed: true,
        results: [
          { question_id: qid(c, 0, 0), correct: true, correct_option_ids: correctOf(c, 0, 0), explanation: 'Because.' },
          { question_id: qid(c, 0, 1), correct: true, correct_option_ids: correctOf(c, 0, 1), explanation: null },
          {
            question_id: qid(c, 0, 2),
            correct: true,
            correct_option_ids: correctOf(c, 0, 2),
            explanation: 'It is false.',
          },
        ],
      });
    });

    it('a partly right multiple answer is wrong; unanswered questions are wrong; 2 of 3 is 67 (passed at 60)', async () => {
      const partial = await submit(s, c, 0, [
        { question_id: qid(c, 0, 0), option_ids: correctOf(c, 0, 0) },
        { question_id: qid(c, 0, 1), option_ids: [correctOf(c, 0, 1)[0]] },
        { question_id: qid(c, 0, 2), option_ids: correctOf(c, 0, 2) },
      ]).expect(201);
      expect(partial.body.results.map((r: { correct: boolean }) => r.correct)).toEqual([true, false, true]);
      expect([partial.body.score, partial.body.passed]).toEqual([67, true]);
      const extra = await submit(s, c, 0, [
        { question_id: qid(c, 0, 1), option_ids: [...correctOf(c, 0, 1), ...wrongOf(c, 0, 1)] },
      ]).expect(201);
      expect(extra.body.results.map((r: { correct: boolean }) => r.correct)).toEqual([false, false, false]);
      const unanswered = await submit(s, c, 0, [{ question_id: qid(c, 0, 2), option_ids: correctOf(c, 0, 2) }]).expect(
        201,
      );
      expect([unanswered.body.score, unanswered.body.passed]).toEqual([33, false]);
      const none = await submit(s, c, 0, []).expect(201);
      expect([none.body.score, none.body.passed]).toEqual([0, false]);
      const wrongSingle = await submit(s, c, 0, [
        { question_id: qid(c, 0, 0), option_ids: [...correctOf(c, 0, 0), wrongOf(c, 0, 0)[0]] },
        { question_id: qid(c, 0, 2), option_ids: wrongOf(c, 0, 2) },
      ]).expect(201);
      expect(wrongSingle.body.results.map((r: { correct: boolean }) => r.correct)).toEqual([false, false, false]);
      const rows = await t.db.query(
        `SELECT score, passed FROM quiz_submissions WHERE user_id = $1 AND lesson_id = $2 ORDER BY submitted_at, score`,
        [s.user.id, c.lessons[0].id],
      );
      expect(rows.length).toBeGreaterThanOrEqual(5);
    });

    it('422 for unknown questions or options, an option of another question, a question twice, malformed ids and limits', async () => {
      const other = await makeCourse(t, author.user.id, {
        title: 'Other quiz',
        lessons: [{ title: 'q', quiz: ONE_QUESTION_QUIZ }],
      });
      const cases: [object[], string][] = [
        [[{ question_id: '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11', option_ids: [] }], 'answers.0.question_id'],
        [[{ question_id: qid(other, 0, 0), option_ids: [] }], 'answers.0.question_id'],
        [[{ question_id: qid(c, 0, 0), option_ids: correctOf(c, 0, 1) }], 'answers.0.option_ids'],
        [[{ question_id: qid(c, 0, 0), option_ids: correctOf(other, 0, 0) }], 'answers.0.option_ids'],
        [
          [
            { question_id: qid(c, 0, 0), option_ids: [] },
            { question_id: qid(c, 0, 0), option_ids: [] },
          ],
          'answers.1.question_id',
        ],
        [[{ question_id: 'nope', option_ids: [] }], 'answers.0.question_id'],
        [[{ question_id: qid(c, 0, 0), option_ids: ['nope'] }], 'answers.0.option_ids'],
        [[{ question_id: qid(c, 0, 0) }], 'answers.0.option_ids'],
        [[{ question_id: qid(c, 0, 0), option_ids: Array(11).fill(correctOf(c, 0, 0)[0]) }], 'answers.0.option_ids'],
        [Array.from({ length: 51 }, () => ({ question_id: qid(c, 0, 0), option_ids: [] })), 'answers'],
      ];
      for (const [answers, field] of cases) {
        const res = await submit(s, c, 0, answers);
        expect([field, res.status, res.body.error.code]).toEqual([field, 422, 'validation_error']);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      await s.agent.post(`${courses()}/${c.id}/lessons/${c.lessons[0].id}/quiz/submissions`).send({}).expect(422);
      // 10 picks (the same option repeated) is within the limit and counts once.
      const ten = await submit(s, c, 0, [
        { question_id: qid(c, 0, 0), option_ids: Array(10).fill(correctOf(c, 0, 0)[0]) },
      ]).expect(201);
      expect(ten.body.results[0].correct).toBe(true);
    });

    it('50 answers are accepted (a 50-question quiz)', async () => {
      const big = await makeCourse(t, author.user.id, {
        title: 'Fifty',
        lessons: [
          {
            title: 'q50',
            quiz: {
              passing_score: 50,
              questions: Array.from({ length: 50 }, (_, i) => ({
                prompt: `Q${i}`,
                kind: 'true_false' as const,
                options: [
                  { text: 'True', correct: i % 2 === 0 },
                  { text: 'False', correct: i % 2 === 1 },
                ],
              })),
            },
          },
        ],
      });
      await enroll(s, big).expect(201);
      const answers = big.lessons[0].quiz!.questions.map((q, i) => ({
        question_id: q.id,
        option_ids: [q.options.find((o) => o.correct === i < 25)!.id],
      }));
      const res = await submit(s, big, 0, answers).expect(201);
      expect([res.body.score, res.body.passed, res.body.results.length]).toEqual([50, true, 50]);
    });

    it('404 for a lesson without a quiz; 403 not_enrolled before enrolling', async () => {
      await submit(s, c, 1, []).expect(404);
      const stranger = await student();
      const res = await submit(stranger, c, 0, []).expect(403);
      expect(res.body.error.code).toBe('not_enrolled');
    });
  });

  describe('completion', () => {
    it('a lesson with a quiz completes only after a passed submission (409 quiz_not_passed); completion is idempotent', async () => {
      const c = await makeCourse(t, author.user.id, {
        title: 'Gated',
        lessons: [{ title: 'quiz', quiz: ONE_QUESTION_QUIZ }, { title: 'plain' }],
      });
      const s = await student();
      const notEnrolled = await complete(s, c, 1).expect(403);
      expect(notEnrolled.body.error.code).toBe('not_enrolled');
      await enroll(s, c).expect(201);
      const blocked = await complete(s, c, 0).expect(409);
      expect(blocked.body.error.code).toBe('quiz_not_passed');
      await submit(s, c, 0, [{ question_id: qid(c, 0, 0), option_ids: wrongOf(c, 0, 0) }]).expect(201);
      expect((await complete(s, c, 0).expect(409)).body.error.code).toBe('quiz_not_passed');
      await submit(s, c, 0, [{ question_id: qid(c, 0, 0), option_ids: correctOf(c, 0, 0) }]).expect(201);
      const done = await complete(s, c, 0).expect(200);
      expect(done.body).toMatchObject({
        status: 'active',
        progress: { completed_lessons: 1, total_lessons: 2, percent: 50 },
      });
      const again = await complete(s, c, 0).expect(200);
      expect(again.body.progress).toEqual(done.body.progress);
      // A later failed attempt does not undo the completion.
      await submit(s, c, 0, [{ question_id: qid(c, 0, 0), option_ids: wrongOf(c, 0, 0) }]).expect(201);
      await complete(s, c, 0).expect(200);
      // A lesson of another course, and a malformed id, are 404.
      const other = await makeCourse(t, author.user.id, { title: 'Elsewhere' });
      await s.agent.post(`${courses()}/${c.id}/lessons/${other.lessons[0].id}/complete`).expect(404);
      await s.agent.post(`${courses()}/${c.id}/lessons/nope/complete`).expect(404);
    });

    it('the last lesson completes the course and issues exactly one CRS certificate of the organization', async () => {
      const c = await makeCourse(t, author.user.id, {
        title: 'Certified course',
        issues_certificate: true,
        lessons: [{ title: 'one' }, { title: 'two' }, { title: 'three' }],
      });
      const s = await student();
      await enroll(s, c).expect(201);
      t.clock.advance(60_000);
      const first = await complete(s, c, 0).expect(200);
      expect(first.body.last_activity_at > first.body.enrolled_at).toBe(true);
      await complete(s, c, 2).expect(200);
      expect(await certificates(s.user.id)).toEqual([]);
      t.clock.advance(60_000);
      const last = await complete(s, c, 1).expect(200);
      expect(last.body).toMatchObject({
        status: 'completed',
        progress: { completed_lessons: 3, total_lessons: 3, percent: 100 },
        completed_at: expect.stringMatching(ISO),
      });
      expect(last.body.last_activity_at).toBe(last.body.completed_at);
      const certs = await certificates(s.user.id);
      expect(certs).toEqual([
        {
          code: expect.stringMatching(CODE),
          type: 'course',
          status: 'active',
          organization_id: orgA,
          course_id: c.id,
          title: 'Certified course',
          holder_name: 'Test Person',
        },
      ]);
      await complete(s, c, 1).expect(200);
      await complete(s, c, 0).expect(200);
      expect(await certificates(s.user.id)).toHaveLength(1);
      // Revoked, it is not re-issued by completing again.
      await t.db.query(`UPDATE issued_certificates SET status = 'revoked', revoked_at = now() WHERE user_id = $1`, [
        s.user.id,
      ]);
      await complete(s, c, 2).expect(200);
      expect(await certificates(s.user.id)).toHaveLength(1);
    });

    it('a course that issues no certificate completes without one', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'No cert' });
      const s = await student();
      await enroll(s, c).expect(201);
      expect((await complete(s, c, 0).expect(200)).body.status).toBe('completed');
      expect(await certificates(s.user.id)).toEqual([]);
    });

    it('concurrent completions complete the course and issue one certificate', async () => {
      const c = await makeCourse(t, author.user.id, {
        title: 'Race to finish',
        issues_certificate: true,
        lessons: [{ title: 'one' }, { title: 'two' }, { title: 'three' }],
      });
      const s = await student();
      await enroll(s, c).expect(201);
      await complete(s, c, 0).expect(200);
      // The two remaining lessons at once, each twice.
      const results = await Promise.all([complete(s, c, 1), complete(s, c, 2), complete(s, c, 1), complete(s, c, 2)]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const final = await s.agent.get(`${courses()}/${c.id}`).expect(200);
      expect(final.body.progress.status).toBe('completed');
      expect(await certificates(s.user.id)).toHaveLength(1);

      const c2 = await makeCourse(t, author.user.id, { title: 'Same last lesson', issues_certificate: true });
      const s2 = await student();
      await enroll(s2, c2).expect(201);
      await Promise.all([complete(s2, c2, 0), complete(s2, c2, 0), complete(s2, c2, 0)]);
      expect(await certificates(s2.user.id)).toHaveLength(1);
    });

    it('the certificate is issued by the organization the person learned in', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Two orgs', issues_certificate: true });
      const s = await student();
      await addMember(t, orgB, s.user.id, 'student');
      await enroll(s, c, orgB).expect(201);
      // Enrollment in B says nothing about A.
      const inA = await s.agent.get(`${courses()}/${c.id}`).expect(200);
      expect(inA.body.progress).toBeNull();
      await complete(s, c, 0, orgA).expect(403);
      await complete(s, c, 0, orgB).expect(200);
      expect((await certificates(s.user.id)).map((x) => x.organization_id)).toEqual([orgB]);
    });

    it('an enrolled learner completes a course after it was unpublished, and earns its certificate', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Retired', issues_certificate: true });
      const s = await student();
      await enroll(s, c).expect(201);
      await t.app.get(EditorService).unpublish(c.id, author.user.id);
      expect((await complete(s, c, 0).expect(200)).body.status).toBe('completed');
      expect(await certificates(s.user.id)).toHaveLength(1);
    });

    it('a completed course stays completed when a lesson is added; its percent drops', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Growing' });
      const s = await student();
      await enroll(s, c).expect(201);
      await complete(s, c, 0).expect(200);
      await t.app.get(EditorService).createLesson(c.id, { title: 'New lesson' });
      const res = await s.agent.get(`/api/v1/organizations/${orgA}/progress`).expect(200);
      expect(res.body.items[0]).toMatchObject({
        status: 'completed',
        progress: { completed_lessons: 1, total_lessons: 2, percent: 50 },
      });
    });
  });

  describe("the course page's progress (counted from its outline, not by the aggregates of /progress)", () => {
    it('matches GET /progress after a completion, a lesson removal and a new lesson', async () => {
      const c = await makeCourse(t, author.user.id, {
        title: 'Counted',
        lessons: [{ title: 'a' }, { title: 'b' }, { title: 'c' }],
      });
      const s = await student();
      const other = await student();
      await enroll(s, c).expect(201);
      await enroll(other, c).expect(201);
      await complete(other, c, 2).expect(200);
      const both = async (): Promise<{ progress: object; completed: boolean[] }> => {
        const page = await s.agent.get(`${courses()}/${c.id}`).expect(200);
        const mine = await s.agent.get(`/api/v1/organizations/${orgA}/progress`).expect(200);
        const listed = mine.body.items.find((i: { course_id: string }) => i.course_id === c.id);
        // The list adds the card and the lessons' external-tool scores; the rest is the course page's progress.
        const { course: _card, lesson_scores: _scores, ...enrollment } = listed;
        expect(page.body.progress).toEqual(enrollment);
        return {
          progress: page.body.progress.progress,
          completed: page.body.lessons.map((l: { completed: boolean }) => l.completed),
        };
      };
      expect(await both()).toEqual({
        progress: { completed_lessons: 0, total_lessons: 3, percent: 0 },
        completed: [false, false, false],
      });
      await complete(s, c, 0).expect(200);
      await complete(s, c, 1).expect(200);
      expect(await both()).toEqual({
        progress: { completed_lessons: 2, total_lessons: 3, percent: 67 },
        completed: [true, true, false],
      });
      const editor = t.app.get(EditorService);
      await editor.deleteLesson(c.id, c.lessons[1].id);
      expect(await both()).toEqual({
        progress: { completed_lessons: 1, total_lessons: 2, percent: 50 },
        completed: [true, false],
      });
      await editor.createLesson(c.id, { title: 'd' });
      expect(await both()).toEqual({
        progress: { completed_lessons: 1, total_lessons: 3, percent: 33 },
        completed: [true, false, false],
      });
      // The lesson page still answers the caller's completion of that lesson.
      const lesson = await s.agent.get(`${courses()}/${c.id}/lessons/${c.lessons[0].id}`).expect(200);
      expect(lesson.body.completed).toBe(true);
    });
  });

  describe('my progress and the exported progressOf', () => {
    it("lists the caller's enrollments in the organization with course cards, most recent first", async () => {
      const s = await student();
      await addMember(t, orgB, s.user.id, 'student');
      const first = await makeCourse(t, author.user.id, {
        title: 'First enrolled',
        lessons: [{ title: 'a' }, { title: 'b' }],
      });
      const second = await makeCourse(t, author.user.id, { title: 'Second enrolled' });
      const inB = await makeCourse(t, author.user.id, { title: 'In B' });
      await enroll(s, first).expect(201);
      t.clock.advance(1000);
      await enroll(s, second).expect(201);
      await enroll(s, inB, orgB).expect(201);
      await complete(s, first, 0).expect(200);
      const res = await s.agent.get(`/api/v1/organizations/${orgA}/progress`).expect(200);
      expect(res.body.items.map((i: { course_id: string }) => i.course_id)).toEqual([second.id, first.id]);
      expect(res.body.items[1]).toEqual({
        course_id: first.id,
        status: 'active',
        progress: { completed_lessons: 1, total_lessons: 2, percent: 50 },
        exams: { required: 0, passed: 0 },
        enrolled_at: expect.stringMatching(ISO),
        completed_at: null,
        last_activity_at: expect.stringMatching(ISO),
        course: expect.objectContaining({ id: first.id, title: 'First enrolled', lessons_count: 2, enrolled: true }),
        lesson_scores: [],
      });
      const none = await owner.agent.get(`/api/v1/organizations/${orgB}/progress`).expect(404);
      expect(none.body.error.code).toBe('not_found');
      const fresh = await student();
      expect((await fresh.agent.get(`/api/v1/organizations/${orgA}/progress`).expect(200)).body).toEqual({ items: [] });

      const rows = await t.app.get(ProgressService).progressOf(orgA, [s.user.id, fresh.user.id]);
      expect(rows.map((r) => [r.user_id, r.course_id, r.percent, r.completed])).toEqual(
        expect.arrayContaining([
          [s.user.id, first.id, 50, false],
          [s.user.id, second.id, 0, false],
        ]),
      );
      expect(rows).toHaveLength(2);
      expect(rows[0].last_activity_at).toBeInstanceOf(Date);
      const only = await t.app.get(ProgressService).progressOf(orgA, [s.user.id], [second.id]);
      expect(only.map((r) => r.course_id)).toEqual([second.id]);
      expect(await t.app.get(ProgressService).progressOf(orgA, [])).toEqual([]);
      expect(await t.app.get(ProgressService).progressOf(orgB, [s.user.id])).toHaveLength(1);
    });
  });
});
