import { UsersRepository } from '@/modules/identity/users/testing';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { type ExamDto, ExamAuthoringService } from '@/modules/learning/exams';
import type { SignedIn } from '../../support/auth';
import {
  answerKey,
  courseWith,
  deepKeys,
  enroll,
  makeExam,
  member,
  openWindow,
  questions,
  SESSION_KEYS,
  type SessionBody,
  STAFF_KEYS,
} from '../../support/exams';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MINUTE = 60_000;

describe('exam sessions', () => {
  let t: TestApp;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let orgA: string;
  let orgB: string;
  let ownerB: SignedIn;
  let cohort: string;
  let courseId: string;

  const sessionsOf = (examId: string, org = orgA): string => `/api/v1/organizations/${org}/exams/${examId}/sessions`;
  const sessionPath = (examId: string, sessionId: string): string => `${sessionsOf(examId)}/${sessionId}`;
  const answerPath = (examId: string, sessionId: string, questionId: string): string =>
    `${sessionPath(examId, sessionId)}/answers/${questionId}`;

  /** A student of org A enrolled in the course and placed in the teacher's cohort (unless told otherwise). */
  async function learner(options: { cohort?: boolean; enrolled?: boolean } = {}): Promise<SignedIn> {
    const s = await member(t, orgA, 'student');
    if (options.enrolled !== false) await enroll(s, orgA, courseId);
    if (options.cohort !== false) await t.app.get(CohortsService).addMember(orgA, cohort, s.user.id, 'student');
    return s;
  }

  /** An exam of a course of its own (a course has at most 20), which becomes the course learners enroll in. */
  async function newExam(over: Parameters<typeof makeExam>[3] = {}): Promise<ExamDto> {
    courseId = (await courseWith(t, owner.user.id, { lessons: [{ title: 'Only lesson' }] })).id;
    return makeExam(t, courseId, owner.user.id, over);
  }

  /** A published exam, open to every member of org A from a minute ago, open-ended. */
  async function openExam(over: Parameters<typeof makeExam>[3] = {}): Promise<ExamDto> {
    const exam = await newExam(over);
    await openWindow(t, orgA, owner.user.id, exam.id);
    return exam;
  }

  async function start(s: SignedIn, exam: ExamDto): Promise<SessionBody> {
    const res = await s.agent.post(sessionsOf(exam.id)).expect(201);
    return res.body;
  }

  /** Freezes the app's clock at `ms` (the test clock otherwise runs with the wall clock). */
  function freezeAt(ms: number): void {
    jest.spyOn(t.clock, 'now').mockImplementation(() => new Date(ms));
  }
  function unfreeze(): void {
    const frozen = t.clock.nowMs();
    jest.restoreAllMocks();
    if (t.clock.nowMs() < frozen) t.clock.advance(frozen - t.clock.nowMs() + 1);
  }

  async function events(
    names: string[],
    sessionId?: string,
  ): Promise<{ name: string; payload: Record<string, unknown>; actor_id: string | null; organization_id: string }[]> {
    return t.db.query(
      `SELECT name, payload, actor_id, organization_id FROM domain_events
       WHERE name = ANY($1) AND ($2::text IS NULL OR payload->>'session_id' = $2) ORDER BY created_at`,
      [names, sessionId ?? null],
    );
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Exams A');
    admin = await member(t, orgA, 'admin');
    teacher = await member(t, orgA, 'teacher');
    otherTeacher = await member(t, orgA, 'teacher');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Exams B');
    const cohorts = t.app.get(CohortsService);
    cohort = (await cohorts.create(orgA, { name: 'Exam cohort' }, owner.user.id)).id;
    await cohorts.addMember(orgA, cohort, teacher.user.id, 'teacher');
    const other = (await cohorts.create(orgA, { name: 'Other cohort' }, owner.user.id)).id;
    await cohorts.addMember(orgA, other, otherTeacher.user.id, 'teacher');
    courseId = (await courseWith(t, owner.user.id, { lessons: [{ title: 'Only lesson' }] })).id;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  describe('start', () => {
    it('201 with the learner view: the drawn questions without answers, the deadline by the server clock, a close job in the outbox', async () => {
      const exam = await openExam({ questions_per_attempt: 4, questions: questions(6), duration_minutes: 45 });
      const s = await learner();
      const before = t.clock.nowMs();
      const res = await s.agent.post(sessionsOf(exam.id)).expect(201);
      const after = t.clock.nowMs();
      const body = res.body;
      expect(Object.keys(body).sort()).toEqual(SESSION_KEYS);
      expect(body).toMatchObject({
        exam_id: exam.id,
        attempt: 1,
        status: 'in_progress',
        submitted_by: null,
        submitted_at: null,
        answers: [],
        flagged: false,
        review_status: 'none',
        counts_as_attempt: true,
        result: null,
        corrections: null,
      });
      expect(body.id).toMatch(UUID);
      const started = Date.parse(body.started_at);
      expect(started).toBeGreaterThanOrEqual(before);
      expect(started).toBeLessThanOrEqual(after);
      expect(Date.parse(body.deadline_at)).toBe(started + 45 * MINUTE);
      expect(body.server_now).toMatch(ISO);
      expect(body.remaining_ms).toBe(Date.parse(body.deadline_at) - Date.parse(body.server_now));
      expect(body.questions).toHaveLength(4);
      expect(body.questions.map((q: { position: number }) => q.position)).toEqual([1, 2, 3, 4]);
      const pool = new Map(exam.questions.map((q) => [q.id, q]));
      for (const q of body.questions) {
        expect(Object.keys(q).sort()).toEqual(['id', 'kind', 'options', 'position', 'prompt']);
        expect(pool.get(q.id)!.prompt).toBe(q.prompt);
        expect(q.options.map((o: { id: string }) => o.id).sort()).toEqual(
          pool
            .get(q.id)!
            .options.map((o) => o.id)
            .sort(),
        );
        for (const o of q.options) expect(Object.keys(o).sort()).toEqual(['id', 'text']);
      }
      expect(new Set(body.questions.map((q: { id: string }) => q.id)).size).toBe(4);
      expect([...deepKeys(body)].filter((k) => ['correct', 'explanation', 'correct_option_ids'].includes(k))).toEqual(
        [],
      );
      const jobs = await t.db.query(`SELECT name, organization_id, run_after, status FROM jobs WHERE dedupe_key = $1`, [
        `exams.close:${body.id}`,
      ]);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ name: 'exams.close_session', organization_id: orgA, status: 'pending' });
      // Queued for deadline + 2 s by the Clock.
      expect(new Date(jobs[0].run_after).toISOString()).toBe(
        new Date(Date.parse(body.deadline_at) + 2000).toISOString(),
      );
    });

    it('keeps the pool order and option order when shuffling is off; questions_per_attempt questions, uniformly distinct', async () => {
      const exam = await openExam({ shuffle_questions: false, shuffle_options: false, questions_per_attempt: 6 });
      const s = await learner();
      const body = await start(s, exam);
      expect(body.questions.map((q: { id: string }) => q.id)).toEqual(exam.questions.map((q) => q.id));
      for (const [i, q] of body.questions.entries()) {
        expect(q.options.map((o: { id: string }) => o.id)).toEqual(exam.questions[i].options.map((o) => o.id));
      }
    });

    it('the deadline is the latest closing of the open windows when it comes before start + duration', async () => {
      const exam = await newExam({ duration_minutes: 60 });
      const now = t.clock.nowMs();
      await openWindow(t, orgA, owner.user.id, exam.id, {
        opens_at: new Date(now - MINUTE).toISOString(),
        closes_at: new Date(now + 10 * MINUTE).toISOString(),
      });
      const cohortClose = new Date(now + 20 * MINUTE).toISOString();
      await openWindow(t, orgA, owner.user.id, exam.id, {
        cohort_id: cohort,
        opens_at: new Date(now - MINUTE).toISOString(),
        closes_at: cohortClose,
      });
      const inCohort = await start(await learner(), exam);
      expect(inCohort.deadline_at).toBe(cohortClose);
      const outside = await start(await learner({ cohort: false }), exam);
      expect(Date.parse(outside.deadline_at)).toBe(now + 10 * MINUTE);
    });

    it('403 not_enrolled for a member not enrolled in the course; nothing created', async () => {
      const exam = await openExam();
      const s = await learner({ enrolled: false });
      const res = await s.agent.post(sessionsOf(exam.id)).expect(403);
      expect(res.body.error.code).toBe('not_enrolled');
      const rows = await t.db.query(`SELECT 1 FROM exam_sessions WHERE user_id = $1`, [s.user.id]);
      expect(rows).toHaveLength(0);
    });

    it('409 exam_not_open without a window, before it opens, after it closes, and for a window of another cohort', async () => {
      const exam = await newExam();
      const s = await learner({ cohort: false });
      const notOpen = async (): Promise<void> => {
        const res = await s.agent.post(sessionsOf(exam.id)).expect(409);
        expect(res.body.error.code).toBe('exam_not_open');
      };
      await notOpen();
      const now = t.clock.nowMs();
      const upcoming = await openWindow(t, orgA, owner.user.id, exam.id, {
        opens_at: new Date(now + 10 * MINUTE).toISOString(),
      });
      await notOpen();
      await openWindow(t, orgA, owner.user.id, exam.id, { cohort_id: cohort });
      await notOpen();
      await t.db.query(`DELETE FROM exam_windows WHERE id = $1`, [upcoming]);
      await openWindow(t, orgA, owner.user.id, exam.id, {
        opens_at: new Date(now - 10 * MINUTE).toISOString(),
        closes_at: new Date(now - MINUTE).toISOString(),
      });
      await notOpen();
      expect(await t.db.query(`SELECT 1 FROM exam_sessions WHERE user_id = $1`, [s.user.id])).toHaveLength(0);
    });

    it('409 exam_session_active while one is in progress; 409 exam_attempts_exhausted once every attempt is used', async () => {
      const exam = await openExam({ max_attempts: 2 });
      const s = await learner();
      const first = await start(s, exam);
      const active = await s.agent.post(sessionsOf(exam.id)).expect(409);
      expect(active.body.error.code).toBe('exam_session_active');
      await s.agent.post(`${sessionPath(exam.id, first.id)}/submit`).expect(200);
      const second = await start(s, exam);
      expect(second.attempt).toBe(2);
      await s.agent.post(`${sessionPath(exam.id, second.id)}/submit`).expect(200);
      const exhausted = await s.agent.post(sessionsOf(exam.id)).expect(409);
      expect(exhausted.body.error.code).toBe('exam_attempts_exhausted');
    });

    it('concurrent starts make one session (one 201, the others 409 exam_session_active)', async () => {
      const exam = await openExam({ max_attempts: 3 });
      const s = await learner();
      const results = await Promise.all([0, 1, 2].map(() => s.agent.post(sessionsOf(exam.id))));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('exam_session_active');
      expect(await t.db.query(`SELECT 1 FROM exam_sessions WHERE user_id = $1`, [s.user.id])).toHaveLength(1);
    });

    it('404 for a draft exam, an unknown one and a malformed id; 422 for a time claimed by the client', async () => {
      const draft = await newExam({ status: 'draft' });
      const s = await learner();
      for (const id of [draft.id, '5b0f3c55-6f0e-4a43-9a36-6d3f2f0a3b11', 'not-a-uuid']) {
        const res = await s.agent.post(sessionsOf(id)).expect(404);
        expect(res.body.error.code).toBe('not_found');
      }
      const exam = await openExam();
      const claim = await s.agent
        .post(sessionsOf(exam.id))
        .send({ started_at: new Date(t.clock.nowMs() - 3_600_000).toISOString() })
        .expect(422);
      expect(claim.body.error.code).toBe('validation_error');
      expect(await t.db.query(`SELECT 1 FROM exam_sessions WHERE user_id = $1`, [s.user.id])).toHaveLength(0);
    });

    it('an exam edited after the start leaves the session as drawn (snapshot)', async () => {
      const exam = await openExam({ questions_per_attempt: 2, questions: questions(2), shuffle_questions: false });
      const s = await learner();
      const session = await start(s, exam);
      await t.app
        .get(ExamAuthoringService)
        .update(courseId, exam.id, { questions: questions(3, 'New'), passing_score: 100 }, owner.user.id);
      const again = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(again.body.questions).toEqual(session.questions);
      // Graded against the snapshot and its passing score (50): both right.
      const key = answerKey(exam);
      for (const q of session.questions) {
        await s.agent
          .put(answerPath(exam.id, session.id, q.id))
          .send({ option_ids: key.get(q.id)!.right, seq: 1 })
          .expect(200);
      }
      const done = await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      expect(done.body.result).toEqual({ score: 100, passed: true });
    });

    it('429 after 10 starts per hour per account', async () => {
      const exam = await openExam({ max_attempts: 1 });
      const s = await learner();
      await start(s, exam);
      for (let i = 2; i <= 10; i++) await s.agent.post(sessionsOf(exam.id)).expect(409);
      const limited = await s.agent.post(sessionsOf(exam.id)).expect(429);
      expect(limited.body.error.code).toBe('too_many_requests');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('autosave', () => {
    it('200 with the stored answer; a seq not above the stored one changes nothing and answers the stored answer', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const q = session.questions[0];
      const [a, b] = q.options.map((o: { id: string }) => o.id);
      const first = await s.agent
        .put(answerPath(exam.id, session.id, q.id))
        .send({ option_ids: [a], seq: 5 })
        .expect(200);
      expect(Object.keys(first.body).sort()).toEqual(['option_ids', 'question_id', 'saved_at', 'seq']);
      expect(first.body).toEqual({ question_id: q.id, option_ids: [a], seq: 5, saved_at: expect.stringMatching(ISO) });
      t.clock.advance(1_000);
      for (const seq of [5, 4, 0]) {
        const stale = await s.agent
          .put(answerPath(exam.id, session.id, q.id))
          .send({ option_ids: [b], seq })
          .expect(200);
        expect(stale.body).toEqual(first.body);
      }
      const newer = await s.agent
        .put(answerPath(exam.id, session.id, q.id))
        .send({ option_ids: [b, b], seq: 6 })
        .expect(200);
      expect(newer.body).toMatchObject({ option_ids: [b], seq: 6 });
      expect(Date.parse(newer.body.saved_at)).toBeGreaterThan(Date.parse(first.body.saved_at));
      const cleared = await s.agent
        .put(answerPath(exam.id, session.id, q.id))
        .send({ option_ids: [], seq: 7 })
        .expect(200);
      expect(cleared.body.option_ids).toEqual([]);
      const read = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(read.body.answers).toEqual([cleared.body]);
    });

    it('out-of-order retries arriving together never overwrite the newest answer', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const q = session.questions[1];
      const opts = q.options.map((o: { id: string }) => o.id);
      await Promise.all(
        [3, 1, 2, 0].map((seq) =>
          s.agent
            .put(answerPath(exam.id, session.id, q.id))
            .send({ option_ids: [opts[seq % opts.length]], seq })
            .expect(200),
        ),
      );
      const read = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(read.body.answers).toEqual([
        expect.objectContaining({ question_id: q.id, seq: 3, option_ids: [opts[0]] }),
      ]);
    });

    it('404 for a question the session did not draw; 422 for an option of another question; 422 for bad bodies and clock claims', async () => {
      const exam = await openExam({ questions_per_attempt: 2, questions: questions(4) });
      const s = await learner();
      const session = await start(s, exam);
      const drawn = new Set(session.questions.map((q: { id: string }) => q.id));
      const notDrawn = exam.questions.find((q) => !drawn.has(q.id))!;
      const q = session.questions[0];
      const missing = await s.agent
        .put(answerPath(exam.id, session.id, notDrawn.id))
        .send({ option_ids: [notDrawn.options[0].id], seq: 1 })
        .expect(404);
      expect(missing.body.error.code).toBe('not_found');
      await s.agent
        .put(answerPath(exam.id, session.id, 'nope'))
        .send({ option_ids: [], seq: 1 })
        .expect(404);
      const foreign = await s.agent
        .put(answerPath(exam.id, session.id, q.id))
        .send({ option_ids: [session.questions[1].options[0].id], seq: 1 })
        .expect(422);
      expect(foreign.body.error.details).toEqual([{ field: 'option_ids', message: expect.any(String) }]);
      const option = q.options[0].id;
      const bad = [
        { option_ids: [option], seq: -1 },
        { option_ids: [option], seq: 1.5 },
        { option_ids: ['x'], seq: 1 },
        { option_ids: Array.from({ length: 11 }, () => option), seq: 1 },
        { option_ids: [option] },
        { option_ids: [option], seq: 1, saved_at: new Date().toISOString() },
        { option_ids: [option], seq: 1, deadline_at: new Date(t.clock.nowMs() + 3_600_000).toISOString() },
      ];
      for (const body of bad) {
        const res = await s.agent
          .put(answerPath(exam.id, session.id, q.id))
          .send(body)
          .expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
      const read = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(read.body.answers).toEqual([]);
      expect(read.body.deadline_at).toBe(session.deadline_at);
    });

    it("another person's session: 404 for a fellow student, 403 for staff who oversee the learner; nothing saved", async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const q = session.questions[0];
      const body = { option_ids: [q.options[0].id], seq: 1 };
      const fellow = await learner();
      expect(
        (
          await fellow.agent
            .put(answerPath(exam.id, session.id, q.id))
            .send(body)
            .expect(404)
        ).body.error.code,
      ).toBe('not_found');
      for (const staff of [owner, teacher]) {
        const res = await staff.agent
          .put(answerPath(exam.id, session.id, q.id))
          .send(body)
          .expect(403);
        expect(res.body.error.code).toBe('forbidden');
      }
      // Another organization's member cannot even reach the path.
      await ownerB.agent
        .put(`/api/v1/organizations/${orgA}/exams/${exam.id}/sessions/${session.id}/answers/${q.id}`)
        .send(body)
        .expect(404);
      expect((await s.agent.get(sessionPath(exam.id, session.id)).expect(200)).body.answers).toEqual([]);
    });

    it('accepted until deadline_at + 2000 ms exactly; 1 ms later 409 exam_session_closed, and the session is graded with what was saved', async () => {
      const exam = await openExam({
        duration_minutes: 10,
        questions_per_attempt: 2,
        questions: questions(2),
        passing_score: 50,
      });
      const s = await learner();
      const session = await start(s, exam);
      const key = answerKey(exam);
      const [q1, q2] = session.questions;
      const deadline = Date.parse(session.deadline_at);
      await s.agent
        .put(answerPath(exam.id, session.id, q1.id))
        .send({ option_ids: key.get(q1.id)!.right, seq: 1 })
        .expect(200);
      freezeAt(deadline + 2000);
      const edge = await s.agent
        .put(answerPath(exam.id, session.id, q2.id))
        .send({ option_ids: key.get(q2.id)!.right, seq: 1 })
        .expect(200);
      expect(edge.body.saved_at).toBe(new Date(deadline + 2000).toISOString());
      const view = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(view.body).toMatchObject({ status: 'in_progress', remaining_ms: 0 });
      freezeAt(deadline + 2001);
      const late = await s.agent
        .put(answerPath(exam.id, session.id, q2.id))
        .send({ option_ids: [key.get(q2.id)!.wrong], seq: 2 })
        .expect(409);
      expect(late.body.error.code).toBe('exam_session_closed');
      const closed = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(closed.body).toMatchObject({
        status: 'submitted',
        submitted_by: 'deadline',
        submitted_at: session.deadline_at,
        remaining_ms: 0,
        result: { score: 100, passed: true },
      });
      expect(closed.body.answers.map((a: { seq: number }) => a.seq)).toEqual([1, 1]);
      unfreeze();
    });
    it('saves racing a submit: every acknowledged save is graded, every refused one is not', async () => {
      const exam = await openExam({ questions_per_attempt: 10, questions: questions(10), passing_score: 0 });
      const s = await learner();
      const session = await start(s, exam);
      const key = answerKey(exam);
      const saves = session.questions.map((q) =>
        s.agent.put(answerPath(exam.id, session.id, q.id)).send({ option_ids: key.get(q.id)!.right, seq: 1 }),
      );
      const submit = s.agent.post(`${sessionPath(exam.id, session.id)}/submit`);
      const [results, done] = await Promise.all([Promise.all(saves), submit]);
      expect(done.status).toBe(200);
      for (const r of results) expect([200, 409]).toContain(r.status);
      const acknowledged = results
        .filter((r) => r.status === 200)
        .map((r) => r.body.question_id)
        .sort();
      const final = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(final.body.answers.map((a: { question_id: string }) => a.question_id).sort()).toEqual(acknowledged);
      expect(final.body.result.score).toBe(acknowledged.length * 10);
    });

    it('429 after 600 saves a minute per account (the 600th still saves)', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const q = session.questions[0];
      const save = (seq: number) =>
        s.agent.put(answerPath(exam.id, session.id, q.id)).send({ option_ids: [q.options[seq % 2].id], seq });
      for (let first = 1; first <= 600; first += 25) {
        const batch = await Promise.all(Array.from({ length: 25 }, (_, i) => save(first + i)));
        for (const res of batch) expect(res.status).toBe(200);
      }
      const limited = await save(601).expect(429);
      expect(limited.body.error.code).toBe('too_many_requests');
      const read = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(read.body.answers).toEqual([expect.objectContaining({ seq: 600, option_ids: [q.options[0].id] })]);
    });
  });

  describe('proctoring events', () => {
    const at = (): string => new Date().toISOString();

    it('202 counting violations by the rules; focus_limit_exceeded past the limit; the learner sees only flagged', async () => {
      const exam = await openExam({
        proctoring: { max_focus_losses: 2, fullscreen_required: false, flag_paste: false },
      });
      const s = await learner();
      const session = await start(s, exam);
      const post = (types: string[]) =>
        s.agent
          .post(`${sessionPath(exam.id, session.id)}/events`)
          .send({ events: types.map((type) => ({ type, occurred_at: at() })) });
      const first = await post(['focus_lost', 'focus_gained', 'fullscreen_exit', 'paste', 'heartbeat']).expect(202);
      expect(first.body).toEqual({ accepted: 5, violations: 1, flagged: false });
      const second = await post(['visibility_hidden']).expect(202);
      expect(second.body).toEqual({ accepted: 1, violations: 2, flagged: false });
      const third = await post(['focus_lost']).expect(202);
      expect(third.body).toEqual({ accepted: 1, violations: 3, flagged: true });
      const view = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(view.body).toMatchObject({ flagged: true, review_status: 'pending' });
      expect(view.body.flags).toBeUndefined();
      expect(view.body.violations).toBeUndefined();
      const staff = await owner.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(staff.body.violations).toBe(3);
      expect(staff.body.flags).toEqual([{ code: 'focus_limit_exceeded', at: expect.stringMatching(ISO) }]);
      const list = await owner.agent.get(`${sessionPath(exam.id, session.id)}/events`).expect(200);
      expect(list.body.total).toBe(7);
      expect(list.body.items.map((e: { type: string; counted: boolean }) => [e.type, e.counted])).toEqual([
        ['focus_lost', true],
        ['focus_gained', false],
        ['fullscreen_exit', false],
        ['paste', false],
        ['heartbeat', false],
        ['visibility_hidden', true],
        ['focus_lost', true],
      ]);
      expect(Object.keys(list.body.items[0]).sort()).toEqual([
        'counted',
        'detail',
        'id',
        'occurred_at',
        'received_at',
        'type',
      ]);
    });

    it('fullscreen exits count when fullscreen is required; a paste flags paste_detected when configured', async () => {
      const exam = await openExam({ proctoring: { fullscreen_required: true, max_focus_losses: 5, flag_paste: true } });
      const s = await learner();
      const session = await start(s, exam);
      const claimed = '2001-01-01T00:00:00.000Z';
      const res = await s.agent
        .post(`${sessionPath(exam.id, session.id)}/events`)
        .send({
          events: [
            { type: 'fullscreen_exit', occurred_at: claimed },
            { type: 'paste', occurred_at: claimed, detail: '42 characters' },
          ],
        })
        .expect(202);
      expect(res.body).toEqual({ accepted: 2, violations: 1, flagged: true });
      const staff = await teacher.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(staff.body.flags.map((f: { code: string }) => f.code)).toEqual(['paste_detected']);
      const list = await teacher.agent.get(`${sessionPath(exam.id, session.id)}/events`).expect(200);
      // The client's time is kept as told; the server's time is the one that counts.
      expect(list.body.items[1]).toMatchObject({
        type: 'paste',
        occurred_at: claimed,
        detail: '42 characters',
        counted: false,
      });
      expect(Date.parse(list.body.items[1].received_at)).toBeGreaterThan(Date.parse(claimed));
    });

    it('422 for an unknown type, an empty or too long batch, a long detail or a malformed time; nothing stored', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const one = { type: 'focus_lost', occurred_at: at() };
      for (const body of [
        { events: [{ type: 'tab_switch', occurred_at: at() }] },
        { events: [] },
        { events: Array.from({ length: 51 }, () => one) },
        { events: [{ ...one, detail: 'x'.repeat(201) }] },
        { events: [{ ...one, occurred_at: 'yesterday' }] },
        { events: [{ ...one, occurred_at: '2026-11-24T10:00:00' }] },
      ]) {
        const res = await s.agent
          .post(`${sessionPath(exam.id, session.id)}/events`)
          .send(body)
          .expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
      const fifty = await s.agent
        .post(`${sessionPath(exam.id, session.id)}/events`)
        .send({ events: Array.from({ length: 50 }, () => ({ type: 'heartbeat', occurred_at: at() })) })
        .expect(202);
      expect(fifty.body.accepted).toBe(50);
      const rows = await t.db.query(`SELECT count(*)::int AS n FROM exam_proctoring_events WHERE session_id = $1`, [
        session.id,
      ]);
      expect(rows[0].n).toBe(50);
    });

    it('ip_changed when the learner’s requests come from a second client address', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const q = session.questions[0];
      await s.agent
        .put(answerPath(exam.id, session.id, q.id))
        .send({ option_ids: [q.options[0].id], seq: 1 })
        .expect(200);
      expect((await owner.agent.get(sessionPath(exam.id, session.id)).expect(200)).body).toMatchObject({
        flagged: false,
        client_addresses_count: 1,
      });
      // The same cookies from another address (a second device, or a shared answer sheet).
      await s.agent
        .put(answerPath(exam.id, session.id, q.id))
        .set('X-Forwarded-For', t.nextIp())
        .send({ option_ids: [q.options[1].id], seq: 2 })
        .expect(200);
      const staff = await owner.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(staff.body).toMatchObject({ flagged: true, review_status: 'pending', client_addresses_count: 2 });
      expect(staff.body.flags.map((f: { code: string }) => f.code)).toEqual(['ip_changed']);
      expect((await s.agent.get(sessionPath(exam.id, session.id)).expect(200)).body.flagged).toBe(true);
    });

    it('409 exam_session_closed after submitting; 429 after 60 batches a minute', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const batch = { events: [{ type: 'heartbeat', occurred_at: at() }] };
      for (let i = 1; i <= 59; i++)
        await s.agent
          .post(`${sessionPath(exam.id, session.id)}/events`)
          .send(batch)
          .expect(202);
      await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      const closed = await s.agent
        .post(`${sessionPath(exam.id, session.id)}/events`)
        .send(batch)
        .expect(409);
      expect(closed.body.error.code).toBe('exam_session_closed');
      const limited = await s.agent
        .post(`${sessionPath(exam.id, session.id)}/events`)
        .send(batch)
        .expect(429);
      expect(limited.body.error.code).toBe('too_many_requests');
    });
  });

  describe('submit and results', () => {
    async function answered(
      over: Parameters<typeof makeExam>[3],
      right: number,
    ): Promise<{ exam: ExamDto; s: SignedIn; session: SessionBody }> {
      const exam = await openExam({ shuffle_questions: false, ...over });
      const s = await learner();
      const session = await start(s, exam);
      const key = answerKey(exam);
      for (const [i, q] of session.questions.entries()) {
        if (i >= right + 1) break;
        const ids = i < right ? key.get(q.id)!.right : [key.get(q.id)!.wrong];
        await s.agent
          .put(answerPath(exam.id, session.id, q.id))
          .send({ option_ids: ids, seq: 1 })
          .expect(200);
      }
      return { exam, s, session };
    }

    it('grades once: exactly the correct options, unanswered wrong, integer percent half up; idempotent; exam.submitted', async () => {
      // 1 right of 8 = 12.5 -> 13; the second answered wrong, six unanswered.
      const { exam, s, session } = await answered(
        { questions_per_attempt: 8, questions: questions(8), passing_score: 13 },
        1,
      );
      const done = await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      expect(done.body).toMatchObject({
        status: 'submitted',
        submitted_by: 'learner',
        result: { score: 13, passed: true },
        corrections: null,
        remaining_ms: 0,
      });
      expect(done.body.submitted_at).toMatch(ISO);
      const again = await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      expect({ ...again.body, server_now: null }).toEqual({ ...done.body, server_now: null });
      const published = await events(['exam.submitted'], session.id);
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({ organization_id: orgA, actor_id: s.user.id });
      expect(published[0].payload).toEqual({
        session_id: session.id,
        exam_id: exam.id,
        course_id: courseId,
        user_id: s.user.id,
        score: 13,
        passed: true,
        flagged: false,
        submitted_by: 'learner',
      });
      const late = await s.agent
        .put(answerPath(exam.id, session.id, session.questions[2].id))
        .send({ option_ids: [], seq: 9 })
        .expect(409);
      expect(late.body.error.code).toBe('exam_session_closed');
    });

    it('2 of 3 right is 67 (half up), below a passing score of 70', async () => {
      const { exam, s, session } = await answered(
        { questions_per_attempt: 3, questions: questions(3), passing_score: 70 },
        2,
      );
      const done = await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      expect(done.body.result).toEqual({ score: 67, passed: false });
    });

    it('show_results none shows nothing, full adds the corrections; no correct answer before grading, ever', async () => {
      const none = await answered({ show_results: 'none', questions_per_attempt: 2, questions: questions(2) }, 1);
      const noneDone = await none.s.agent.post(`${sessionPath(none.exam.id, none.session.id)}/submit`).expect(200);
      expect(noneDone.body).toMatchObject({ status: 'submitted', result: null, corrections: null });
      const listed = await none.s.agent.get(sessionsOf(none.exam.id)).expect(200);
      expect(listed.body.items[0]).toMatchObject({ result: null, corrections: null });

      const full = await answered({ show_results: 'full', questions_per_attempt: 2, questions: questions(2) }, 1);
      const inProgress = await full.s.agent.get(sessionPath(full.exam.id, full.session.id)).expect(200);
      const leaks = ['correct', 'correct_option_ids', 'explanation'];
      expect([...deepKeys(inProgress.body)].filter((k) => leaks.includes(k))).toEqual([]);
      const cards = await full.s.agent.get(`/api/v1/organizations/${orgA}/exams/${full.exam.id}`).expect(200);
      expect([...deepKeys(cards.body)].filter((k) => leaks.includes(k) || k === 'questions')).toEqual([]);
      const fullDone = await full.s.agent.post(`${sessionPath(full.exam.id, full.session.id)}/submit`).expect(200);
      const key = answerKey(full.exam);
      expect(fullDone.body.result).toEqual({ score: 50, passed: true });
      expect(fullDone.body.corrections).toEqual(
        full.session.questions.map((q: { id: string }, i: number) => ({
          question_id: q.id,
          correct: i === 0,
          correct_option_ids: key.get(q.id)!.right,
          explanation: full.exam.questions.find((p) => p.id === q.id)!.explanation,
        })),
      );
    });

    it("another person's submit: 404 for a fellow student, 403 for staff; the session stays open", async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      await (await learner()).agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(404);
      await admin.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(403);
      expect((await s.agent.get(sessionPath(exam.id, session.id)).expect(200)).body.status).toBe('in_progress');
      await s.agent
        .post(`${sessionPath(exam.id, session.id)}/submit`)
        .send({ submitted_at: new Date().toISOString() })
        .expect(422);
    });
  });

  describe('reading', () => {
    it('its learner gets the learner view, staff who oversee them the staff view, anyone else 404', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      const mine = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(Object.keys(mine.body).sort()).toEqual(SESSION_KEYS);
      for (const staff of [owner, admin, teacher]) {
        const res = await staff.agent.get(sessionPath(exam.id, session.id)).expect(200);
        expect(Object.keys(res.body).sort()).toEqual(STAFF_KEYS);
        expect(res.body.person).toEqual({
          user_id: s.user.id,
          username: s.user.username,
          name: 'Test Person',
          avatar_svg_url: expect.stringContaining(`/api/v1/users/${s.user.id}/avatar.svg`),
          anonymous: false,
        });
        expect(res.body).toMatchObject({
          violations: 0,
          flags: [],
          client_addresses_count: 1,
          review: null,
          result: null,
        });
        // extensions-v3 6.1: no corrections while in progress, for staff too.
        expect(res.body.corrections).toBeNull();
      }
      for (const other of [otherTeacher, await learner()]) {
        expect((await other.agent.get(sessionPath(exam.id, session.id)).expect(404)).body.error.code).toBe('not_found');
      }
      await s.agent.get(sessionPath(exam.id, 'not-a-uuid')).expect(404);
      await ownerB.agent.get(sessionPath(exam.id, session.id)).expect(404);
    });
  });

  describe('review', () => {
    async function submitted(
      over: Parameters<typeof makeExam>[3] = {},
      right = true,
    ): Promise<{ exam: ExamDto; s: SignedIn; session: SessionBody }> {
      const exam = await openExam({ questions_per_attempt: 1, questions: questions(1), ...over });
      const s = await learner();
      const session = await start(s, exam);
      const key = answerKey(exam);
      const q = session.questions[0];
      await s.agent
        .put(answerPath(exam.id, session.id, q.id))
        .send({ option_ids: right ? key.get(q.id)!.right : [key.get(q.id)!.wrong], seq: 1 })
        .expect(200);
      await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      return { exam, s, session };
    }

    it('accept: 200 staff view with the review; audit exam_session.reviewed; exam.reviewed; then 409 already reviewed', async () => {
      const { exam, s, session } = await submitted();
      const res = await teacher.agent
        .post(`${sessionPath(exam.id, session.id)}/review`)
        .send({ decision: 'accept', reason: 'Checked the recording' })
        .expect(200);
      expect(Object.keys(res.body).sort()).toEqual(STAFF_KEYS);
      expect(res.body).toMatchObject({
        review_status: 'accepted',
        result: { score: 100, passed: true },
        review: {
          decision: 'accept',
          reason: 'Checked the recording',
          allow_retake: false,
          reviewed_by: { user_id: teacher.user.id },
          reviewed_at: expect.stringMatching(ISO),
        },
      });
      const audit = await t.db.query(
        `SELECT actor_id, organization_id, target_type, metadata FROM audit_log WHERE action = 'exam_session.reviewed' AND target_id = $1`,
        [session.id],
      );
      expect(audit).toEqual([
        {
          actor_id: teacher.user.id,
          organization_id: orgA,
          target_type: 'exam_session',
          metadata: { decision: 'accept', allow_retake: false, reason: 'Checked the recording', score: 100 },
        },
      ]);
      const published = await events(['exam.reviewed'], session.id);
      expect(published).toHaveLength(1);
      expect(published[0].actor_id).toBe(teacher.user.id);
      expect(published[0].payload).toEqual({
        session_id: session.id,
        exam_id: exam.id,
        course_id: courseId,
        user_id: s.user.id,
        decision: 'accept',
        allow_retake: false,
        score: 100,
        passed: true,
      });
      const again = await owner.agent
        .post(`${sessionPath(exam.id, session.id)}/review`)
        .send({ decision: 'void', reason: 'Second thoughts' })
        .expect(409);
      expect(again.body.error.code).toBe('exam_session_already_reviewed');
    });

    it('void cancels score and pass; with allow_retake the attempt is given back, without it it still counts', async () => {
      const { exam, s, session } = await submitted({ max_attempts: 1 });
      const card = async () =>
        (await s.agent.get(`/api/v1/organizations/${orgA}/exams/${exam.id}`).expect(200)).body.my;
      expect(await card()).toMatchObject({ attempts_used: 1, attempts_left: 0, best_score: 100, passed: true });
      const voided = await owner.agent
        .post(`${sessionPath(exam.id, session.id)}/review`)
        .send({ decision: 'void', reason: 'Notes on the desk', allow_retake: true })
        .expect(200);
      expect(voided.body).toMatchObject({ review_status: 'voided', counts_as_attempt: false });
      expect(voided.body.review).toMatchObject({ decision: 'void', allow_retake: true });
      const learnerView = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(learnerView.body).toMatchObject({
        review_status: 'voided',
        counts_as_attempt: false,
        result: null,
        corrections: null,
      });
      expect(await card()).toMatchObject({ attempts_used: 0, attempts_left: 1, best_score: null, passed: false });
      const published = await events(['exam.reviewed'], session.id);
      expect(published[0].payload).toMatchObject({ decision: 'void', allow_retake: true, score: null, passed: false });
      const retake = await start(s, exam);
      expect(retake.attempt).toBe(2);

      const other = await submitted({ max_attempts: 1 });
      await admin.agent
        .post(`${sessionPath(other.exam.id, other.session.id)}/review`)
        .send({ decision: 'void', reason: 'Copied' })
        .expect(200);
      const exhausted = await other.s.agent.post(sessionsOf(other.exam.id)).expect(409);
      expect(exhausted.body.error.code).toBe('exam_attempts_exhausted');
    });

    it('403 for one’s own session and for a teacher of other cohorts; 403 for students; 409 while in progress; 422', async () => {
      const exam = await openExam({ questions_per_attempt: 1, questions: questions(1) });
      // The owner takes the exam too: nobody reviews their own session.
      await enroll(owner, orgA, courseId);
      const own = await start(owner, exam);
      await owner.agent.post(`${sessionPath(exam.id, own.id)}/submit`).expect(200);
      const self = await owner.agent
        .post(`${sessionPath(exam.id, own.id)}/review`)
        .send({ decision: 'accept', reason: 'Mine' })
        .expect(403);
      expect(self.body.error.code).toBe('forbidden');
      await admin.agent
        .post(`${sessionPath(exam.id, own.id)}/review`)
        .send({ decision: 'accept', reason: 'Fine' })
        .expect(200);

      const s = await learner();
      const session = await start(s, exam);
      const body = { decision: 'accept', reason: 'ok' };
      for (const who of [otherTeacher, s]) {
        expect(
          (
            await who.agent
              .post(`${sessionPath(exam.id, session.id)}/review`)
              .send(body)
              .expect(403)
          ).body.error.code,
        ).toBe('forbidden');
      }
      const open = await teacher.agent
        .post(`${sessionPath(exam.id, session.id)}/review`)
        .send(body)
        .expect(409);
      expect(open.body.error.code).toBe('exam_session_in_progress');
      await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      for (const bad of [
        { decision: 'accept', reason: 'ok', allow_retake: true },
        { decision: 'accept', reason: '' },
        { decision: 'accept', reason: 'x'.repeat(501) },
        { decision: 'approve', reason: 'ok' },
        { reason: 'ok' },
      ]) {
        const res = await teacher.agent
          .post(`${sessionPath(exam.id, session.id)}/review`)
          .send(bad)
          .expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
      expect((await teacher.agent.get(sessionPath(exam.id, session.id)).expect(200)).body.review_status).toBe('none');
    });

    it('a flagged session is pending until a reviewer accepts it', async () => {
      const exam = await openExam({
        questions_per_attempt: 1,
        questions: questions(1),
        proctoring: { max_focus_losses: 0 },
      });
      const s = await learner();
      const session = await start(s, exam);
      await s.agent
        .post(`${sessionPath(exam.id, session.id)}/events`)
        .send({ events: [{ type: 'focus_lost', occurred_at: new Date().toISOString() }] })
        .expect(202);
      const done = await s.agent.post(`${sessionPath(exam.id, session.id)}/submit`).expect(200);
      expect(done.body).toMatchObject({ flagged: true, review_status: 'pending' });
      const published = await events(['exam.submitted'], session.id);
      expect(published[0].payload.flagged).toBe(true);
      const pending = await owner.agent.get(`${sessionsOf(exam.id)}?review_status=pending`).expect(200);
      expect(pending.body.items.map((x: { id: string }) => x.id)).toEqual([session.id]);
      await owner.agent
        .post(`${sessionPath(exam.id, session.id)}/review`)
        .send({ decision: 'accept', reason: 'Window closed by a popup' })
        .expect(200);
      expect((await s.agent.get(sessionPath(exam.id, session.id)).expect(200)).body.review_status).toBe('accepted');
    });
  });

  describe('lists', () => {
    let exam: ExamDto;
    let a: SignedIn; // in the teacher's cohort, submitted, flagged
    let b: SignedIn; // in the teacher's cohort, in progress
    let c: SignedIn; // in no cohort, submitted
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      exam = await openExam({ questions_per_attempt: 1, questions: questions(1) });
      a = await learner();
      b = await learner();
      c = await learner({ cohort: false });
      ids.a = (await start(a, exam)).id;
      await a.agent
        .post(`${sessionPath(exam.id, ids.a)}/events`)
        .send({ events: [{ type: 'paste', occurred_at: new Date().toISOString() }] })
        .expect(202);
      await a.agent.post(`${sessionPath(exam.id, ids.a)}/submit`).expect(200);
      t.clock.advance(1_000);
      ids.b = (await start(b, exam)).id;
      t.clock.advance(1_000);
      ids.c = (await start(c, exam)).id;
      await c.agent.post(`${sessionPath(exam.id, ids.c)}/submit`).expect(200);
    });

    const list = async (who: SignedIn, query = ''): Promise<string[]> => {
      const res = await who.agent.get(`${sessionsOf(exam.id)}${query}`).expect(200);
      expect(res.body).toMatchObject({ limit: expect.any(Number), offset: expect.any(Number) });
      expect(res.body.items).toHaveLength(Math.max(0, Math.min(res.body.total - res.body.offset, res.body.limit)));
      return res.body.items.map((x: { id: string }) => x.id);
    };

    it('owners and admins see every session, most recent first, with each filter', async () => {
      expect(await list(owner)).toEqual([ids.c, ids.b, ids.a]);
      expect(await list(admin, `?user_id=${b.user.id}`)).toEqual([ids.b]);
      expect(await list(owner, `?cohort_id=${cohort}`)).toEqual([ids.b, ids.a]);
      expect(await list(owner, '?status=submitted')).toEqual([ids.c, ids.a]);
      expect(await list(owner, '?status=in_progress')).toEqual([ids.b]);
      expect(await list(owner, '?flagged=true')).toEqual([ids.a]);
      expect(await list(owner, '?flagged=false')).toEqual([ids.c, ids.b]);
      expect(await list(owner, '?review_status=pending')).toEqual([ids.a]);
      expect(await list(owner, `?cohort_id=${cohort}&status=submitted`)).toEqual([ids.a]);
      expect(await list(owner, '?limit=1&offset=1')).toEqual([ids.b]);
      const page = await owner.agent.get(sessionsOf(exam.id)).expect(200);
      expect(page.body.total).toBe(3);
      for (const item of page.body.items) expect(Object.keys(item).sort()).toEqual(STAFF_KEYS);
    });

    it("a teacher sees their cohorts' students only; other filters outside that are 403; another organization's cohort 404", async () => {
      expect(await list(teacher)).toEqual([ids.b, ids.a]);
      expect(await list(otherTeacher)).toEqual([]);
      expect((await teacher.agent.get(`${sessionsOf(exam.id)}?user_id=${c.user.id}`).expect(403)).body.error.code).toBe(
        'forbidden',
      );
      expect(
        (await otherTeacher.agent.get(`${sessionsOf(exam.id)}?cohort_id=${cohort}`).expect(403)).body.error.code,
      ).toBe('forbidden');
      const cohortB = (await t.app.get(CohortsService).create(orgB, { name: 'B cohort' }, ownerB.user.id)).id;
      expect((await owner.agent.get(`${sessionsOf(exam.id)}?cohort_id=${cohortB}`).expect(404)).body.error.code).toBe(
        'not_found',
      );
    });

    it('a learner sees their own sessions (learner view); another person or a cohort is 403; bad filters 422', async () => {
      expect(await list(a)).toEqual([ids.a]);
      const own = await a.agent.get(sessionsOf(exam.id)).expect(200);
      expect(Object.keys(own.body.items[0]).sort()).toEqual(SESSION_KEYS);
      expect(await list(a, `?user_id=${a.user.id}`)).toEqual([ids.a]);
      await a.agent.get(`${sessionsOf(exam.id)}?user_id=${b.user.id}`).expect(403);
      await a.agent.get(`${sessionsOf(exam.id)}?cohort_id=${cohort}`).expect(403);
      for (const q of [
        '?status=open',
        '?flagged=maybe',
        '?review_status=done',
        '?limit=0',
        '?limit=201',
        '?offset=-1',
        '?user_id=x',
      ]) {
        expect((await owner.agent.get(`${sessionsOf(exam.id)}${q}`).expect(422)).body.error.code).toBe(
          'validation_error',
        );
      }
    });

    it('event lists: 403 for a teacher of other cohorts and for students', async () => {
      await otherTeacher.agent.get(`${sessionPath(exam.id, ids.a)}/events`).expect(403);
      await a.agent.get(`${sessionPath(exam.id, ids.a)}/events`).expect(403);
      const res = await teacher.agent.get(`${sessionPath(exam.id, ids.a)}/events?limit=1`).expect(200);
      expect(res.body).toMatchObject({ total: 1, limit: 1, offset: 0 });
      await teacher.agent.get(`${sessionPath(exam.id, ids.c)}/events`).expect(403);
    });
  });

  describe('minors', () => {
    it('403 guardian_consent_required on every learner write of a minor without consent; reads still work', async () => {
      const exam = await openExam();
      const s = await learner();
      const session = await start(s, exam);
      await t.app.get(UsersRepository).update(s.user.id, { ageBracket: 'under_18' }, t.clock.now());
      const q = session.questions[0];
      const writes = [
        s.agent.post(sessionsOf(exam.id)),
        s.agent.put(answerPath(exam.id, session.id, q.id)).send({ option_ids: [q.options[0].id], seq: 1 }),
        s.agent
          .post(`${sessionPath(exam.id, session.id)}/events`)
          .send({ events: [{ type: 'heartbeat', occurred_at: new Date().toISOString() }] }),
        s.agent.post(`${sessionPath(exam.id, session.id)}/submit`),
      ];
      for (const res of await Promise.all(writes)) {
        expect([res.status, res.body.error.code]).toEqual([403, 'guardian_consent_required']);
      }
      const read = await s.agent.get(sessionPath(exam.id, session.id)).expect(200);
      expect(read.body).toMatchObject({ status: 'in_progress', answers: [] });
    });
  });
});
