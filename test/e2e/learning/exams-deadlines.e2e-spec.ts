import { connect } from 'node:net';
import { TransactionRunner } from '@/core/database/transaction';
import { EventDispatcher } from '@/core/events/event-dispatcher';
import { PersonalDataRegistry } from '@/core/privacy/personal-data';
import { JobRunner } from '@/core/queue/job-runner';
import { SchedulerService } from '@/core/queue/scheduler.service';
import { CohortsService } from '@/modules/tenancy/cohorts';
import type { ExamDto } from '@/modules/learning/exams';
import { CLOSE_OVERDUE } from '@/modules/learning/exams/testing';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import {
  advance,
  answerKey,
  courseWith,
  deepKeys,
  enroll,
  makeExam,
  member,
  openWindow,
  questions,
  type SessionBody,
} from '../../support/exams';
import { adult, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const MINUTE = 60_000;

describe('exam deadlines, restarts, disconnects and course completion', () => {
  let t: TestApp;
  let owner: SignedIn;
  let teacher: SignedIn;
  let orgA: string;
  let cohort: string;

  const sessions = (examId: string): string => `/api/v1/organizations/${orgA}/exams/${examId}/sessions`;
  const session = (examId: string, id: string): string => `${sessions(examId)}/${id}`;

  async function setup(
    over: Parameters<typeof makeExam>[3] = {},
  ): Promise<{ exam: ExamDto; s: SignedIn; courseId: string }> {
    const courseId = (await courseWith(t, owner.user.id)).id;
    const exam = await makeExam(t, courseId, owner.user.id, over);
    await openWindow(t, orgA, owner.user.id, exam.id);
    const s = await member(t, orgA);
    await enroll(s, orgA, courseId);
    await t.app.get(CohortsService).addMember(orgA, cohort, s.user.id, 'student');
    return { exam, s, courseId };
  }

  async function startWith(s: SignedIn, exam: ExamDto, right: number): Promise<SessionBody> {
    const body: SessionBody = (await s.agent.post(sessions(exam.id)).expect(201)).body;
    const key = answerKey(exam);
    for (const q of body.questions.slice(0, right)) {
      await s.agent
        .put(`${session(exam.id, body.id)}/answers/${q.id}`)
        .send({ option_ids: key.get(q.id)!.right, seq: 1 })
        .expect(200);
    }
    return body;
  }

  async function row(
    id: string,
    db = t.db,
  ): Promise<{
    status: string;
    submitted_by: string | null;
    score: number | null;
    passed: boolean | null;
    submitted_at: Date | null;
  }> {
    const [r] = await db.query(
      `SELECT status, submitted_by, score, passed, submitted_at FROM exam_sessions WHERE id = $1`,
      [id],
    );
    return r;
  }

  async function submittedEvents(
    id: string,
    db = t.db,
  ): Promise<{ payload: Record<string, unknown>; actor_id: string | null; occurred_at: Date }[]> {
    return db.query(
      `SELECT payload, actor_id, occurred_at FROM domain_events WHERE name = 'exam.submitted' AND payload->>'session_id' = $1`,
      [id],
    );
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Deadlines A');
    teacher = await member(t, orgA, 'teacher');
    cohort = (await t.app.get(CohortsService).create(orgA, { name: 'Deadline cohort' }, owner.user.id)).id;
    await t.app.get(CohortsService).addMember(orgA, cohort, teacher.user.id, 'teacher');
  });
  afterAll(() => t.close());

  describe('closing at the deadline', () => {
    it('a read after the grace closes and grades the session with its saved answers (submitted_by deadline, at the deadline)', async () => {
      const { exam, s } = await setup({ duration_minutes: 5, questions_per_attempt: 4, questions: questions(4) });
      const body = await startWith(s, exam, 3);
      await advance(t, 5 * MINUTE + 2_001, s, owner, teacher);
      const read = await s.agent.get(session(exam.id, body.id)).expect(200);
      expect(read.body).toMatchObject({
        status: 'submitted',
        submitted_by: 'deadline',
        submitted_at: body.deadline_at,
        remaining_ms: 0,
        result: { score: 75, passed: true },
      });
      const published = await submittedEvents(body.id);
      expect(published).toHaveLength(1);
      expect(published[0].actor_id).toBeNull();
      expect(new Date(published[0].occurred_at).toISOString()).toBe(body.deadline_at);
      expect(published[0].payload).toMatchObject({
        submitted_by: 'deadline',
        score: 75,
        passed: true,
        user_id: s.user.id,
      });
      // Submitting afterwards answers the closed session as it is.
      const submit = await s.agent.post(`${session(exam.id, body.id)}/submit`).expect(200);
      expect(submit.body).toMatchObject({ submitted_by: 'deadline', result: { score: 75, passed: true } });
      expect(await submittedEvents(body.id)).toHaveLength(1);
    });

    it('the close job runs through the outbox: before the grace it is retried (not due), after it the session is graded once', async () => {
      const { exam, s } = await setup({ duration_minutes: 3, questions_per_attempt: 2, questions: questions(2) });
      const body = await startWith(s, exam, 1);
      const [job] = await t.db.query(`SELECT id FROM jobs WHERE dedupe_key = $1`, [`exams.close:${body.id}`]);
      const runner = t.app.get(JobRunner);
      await expect(runner.execute(job.id)).rejects.toThrow(/not past its deadline/);
      const [pending] = await t.db.query(`SELECT status, attempts, last_error FROM jobs WHERE id = $1`, [job.id]);
      expect(pending).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_error: expect.stringContaining('SessionNotDueYet'),
      });
      expect((await row(body.id)).status).toBe('in_progress');
      await advance(t, 3 * MINUTE + 2_001, s, owner, teacher);
      await runner.execute(job.id);
      expect(await row(body.id)).toMatchObject({
        status: 'submitted',
        submitted_by: 'deadline',
        score: 50,
        passed: true,
      });
      const [done] = await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [job.id]);
      expect(done.status).toBe('completed');
      await runner.execute(job.id); // a redelivery changes nothing
      expect(await submittedEvents(body.id)).toHaveLength(1);
    });

    it('the close job of a session submitted by the learner changes nothing', async () => {
      const { exam, s } = await setup({ duration_minutes: 2 });
      const body = await startWith(s, exam, 0);
      await s.agent.post(`${session(exam.id, body.id)}/submit`).expect(200);
      const [job] = await t.db.query(`SELECT id FROM jobs WHERE dedupe_key = $1`, [`exams.close:${body.id}`]);
      await advance(t, 2 * MINUTE + 2_001, s, owner, teacher);
      await t.app.get(JobRunner).execute(job.id);
      expect(await row(body.id)).toMatchObject({ submitted_by: 'learner' });
      expect(await submittedEvents(body.id)).toHaveLength(1);
    });

    it('the safety-net schedule exams.close_overdue closes every session past its grace, and only those', async () => {
      const late = await setup({ duration_minutes: 1, questions_per_attempt: 1, questions: questions(1) });
      const lateBody = await startWith(late.s, late.exam, 1);
      const later = await setup({ duration_minutes: 10 });
      const laterBody = await startWith(later.s, later.exam, 0);
      await advance(t, MINUTE + 2_001, owner, teacher);
      const jobId = await t.app.get(SchedulerService).enqueue(CLOSE_OVERDUE, t.clock.now());
      await waitUntil(
        async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [jobId]))[0]?.status === 'completed',
        {
          what: 'the schedule run',
        },
      );
      expect(await row(lateBody.id)).toMatchObject({ status: 'submitted', submitted_by: 'deadline', score: 100 });
      expect((await row(laterBody.id)).status).toBe('in_progress');
    });
  });

  describe('a forced disconnect', () => {
    it('loses no autosaved answer: the connection dies mid-save, the learner comes back from elsewhere, retries, and everything counts', async () => {
      const { exam, s } = await setup({
        duration_minutes: 20,
        questions_per_attempt: 4,
        questions: questions(4),
        shuffle_questions: false,
      });
      const body = await startWith(s, exam, 2);
      const key = answerKey(exam);
      const third = body.questions[2];
      // The third save is written on a raw connection that is torn down as soon as the request is out: the client
      // never learns whether it arrived.
      const token = await personalToken(t, s, orgA, 'write');
      const payload = JSON.stringify({ option_ids: key.get(third.id)!.right, seq: 1 });
      const port = Number(new URL(t.baseUrl).port);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `PUT ${session(exam.id, body.id)}/answers/${third.id} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
              `Authorization: Bearer ${token}\r\nX-Forwarded-For: ${s.ip}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
            () => {
              socket.destroy();
              resolve();
            },
          );
        });
        socket.on('error', reject);
      });
      // Back from another network: the session and every acknowledged answer are there; the unacknowledged save is
      // retried with the same seq, which is safe whether or not the first one landed.
      const back = t.client();
      back.set('Authorization', `Bearer ${token}`);
      const retry = await back
        .put(`${session(exam.id, body.id)}/answers/${third.id}`)
        .send(JSON.parse(payload))
        .expect(200);
      expect(retry.body).toMatchObject({ question_id: third.id, option_ids: key.get(third.id)!.right, seq: 1 });
      const read = await back.get(session(exam.id, body.id)).expect(200);
      expect(read.body.status).toBe('in_progress');
      expect(read.body.answers.map((a: { question_id: string; seq: number }) => [a.question_id, a.seq])).toEqual(
        body.questions.slice(0, 3).map((q) => [q.id, 1]),
      );
      expect(read.body.flagged).toBe(true);
      // The learner never submits: the deadline closes the session with the three answers.
      await advance(t, 20 * MINUTE + 2_001, s, owner, teacher);
      const closed = await s.agent.get(session(exam.id, body.id)).expect(200);
      expect(closed.body).toMatchObject({
        status: 'submitted',
        submitted_by: 'deadline',
        result: { score: 75, passed: true },
      });
      const staff = await teacher.agent.get(session(exam.id, body.id)).expect(200);
      expect(staff.body.flags.map((f: { code: string }) => f.code)).toEqual(['ip_changed']);
    });
  });

  describe('course completion waits for the required exams (9.8)', () => {
    let course: MadeCourse;
    let required: ExamDto;

    async function path(): Promise<{ s: SignedIn; complete: (i: number) => Promise<Record<string, unknown>> }> {
      const s = await member(t, orgA);
      await enroll(s, orgA, course.id);
      await t.app.get(CohortsService).addMember(orgA, cohort, s.user.id, 'student');
      const complete = async (i: number): Promise<Record<string, unknown>> =>
        (
          await s.agent
            .post(`/api/v1/organizations/${orgA}/courses/${course.id}/lessons/${course.lessons[i].id}/complete`)
            .expect(200)
        ).body;
      return { s, complete };
    }
    const enrollment = async (s: SignedIn): Promise<Record<string, unknown>> => {
      const res = await s.agent.get(`/api/v1/organizations/${orgA}/progress`).expect(200);
      return res.body.items.find((i: { course_id: string }) => i.course_id === course.id);
    };
    const certificates = async (userId: string): Promise<{ course_id: string; status: string }[]> =>
      t.db.query(`SELECT course_id, status FROM issued_certificates WHERE user_id = $1 AND course_id = $2`, [
        userId,
        course.id,
      ]);
    const completions = async (userId: string): Promise<Record<string, unknown>[]> =>
      (
        await t.db.query(
          `SELECT payload, actor_id FROM domain_events WHERE name = 'course.completed' AND payload->>'user_id' = $1`,
          [userId],
        )
      ).map((r: { payload: Record<string, unknown>; actor_id: string | null }) => ({
        ...r.payload,
        actor_id: r.actor_id,
      }));
    /** Every exam result delivered to progress (the app's own dispatcher may hold some: wait for those too). */
    const deliver = async (): Promise<void> => {
      await t.app.get(EventDispatcher).drain();
      await waitUntil(
        async () =>
          (
            await t.db.query(
              `SELECT 1 FROM domain_event_deliveries WHERE subscriber = 'progress.complete_after_exam' AND status <> 'done'`,
            )
          ).length === 0,
        { what: 'the deliveries to progress' },
      );
    };

    beforeAll(async () => {
      course = await makeCourse(t, owner.user.id, {
        title: 'Certified with an exam',
        issues_certificate: true,
        lessons: [{ title: 'One' }, { title: 'Two' }],
      });
      required = await makeExam(t, course.id, owner.user.id, {
        title: 'Required',
        required_for_completion: true,
        questions_per_attempt: 2,
        questions: questions(2),
        passing_score: 100,
        max_attempts: 3,
      });
      // Neither a draft required exam nor a published optional one is a requirement.
      await makeExam(t, course.id, owner.user.id, { title: 'Draft', required_for_completion: true, status: 'draft' });
      const optional = await makeExam(t, course.id, owner.user.id, { title: 'Optional' });
      await openWindow(t, orgA, owner.user.id, required.id);
      await openWindow(t, orgA, owner.user.id, optional.id);
    });

    it('lessons first: the course completes when the exam is passed, at its close, and the certificate is issued then', async () => {
      const { s, complete } = await path();
      expect((await enrollment(s)).exams).toEqual({ required: 1, passed: 0 });
      await complete(0);
      const last = await complete(1);
      expect(last).toMatchObject({ status: 'active', completed_at: null, exams: { required: 1, passed: 0 } });
      await deliver();
      expect(await certificates(s.user.id)).toEqual([]);
      expect(await completions(s.user.id)).toEqual([]);

      // A failed attempt changes nothing.
      const failed = await startWith(s, required, 1);
      await s.agent.post(`${session(required.id, failed.id)}/submit`).expect(200);
      await deliver();
      expect((await enrollment(s)).status).toBe('active');

      const passed = await startWith(s, required, 2);
      const done = await s.agent.post(`${session(required.id, passed.id)}/submit`).expect(200);
      expect(done.body.result).toEqual({ score: 100, passed: true });
      await deliver();
      const after = await enrollment(s);
      expect(after).toMatchObject({
        status: 'completed',
        completed_at: done.body.submitted_at,
        exams: { required: 1, passed: 1 },
      });
      expect(await certificates(s.user.id)).toEqual([{ course_id: course.id, status: 'active' }]);
      expect(await completions(s.user.id)).toEqual([
        { user_id: s.user.id, course_id: course.id, completed_at: done.body.submitted_at, actor_id: s.user.id },
      ]);
      // A void after completion does not undo it.
      await teacher.agent
        .post(`${session(required.id, passed.id)}/review`)
        .send({ decision: 'void', reason: 'Late finding' })
        .expect(200);
      await deliver();
      expect(await enrollment(s)).toMatchObject({ status: 'completed', exams: { required: 1, passed: 0 } });
      expect(await certificates(s.user.id)).toHaveLength(1);
      expect(await completions(s.user.id)).toHaveLength(1);
    });

    it('exam first: the last lesson completes the course at the lesson-complete call', async () => {
      const { s, complete } = await path();
      await complete(0);
      const body = await startWith(s, required, 2);
      await s.agent.post(`${session(required.id, body.id)}/submit`).expect(200);
      await deliver();
      expect(await enrollment(s)).toMatchObject({ status: 'active', exams: { required: 1, passed: 1 } });
      const last = await complete(1);
      expect(last).toMatchObject({ status: 'completed', exams: { required: 1, passed: 1 } });
      expect(await certificates(s.user.id)).toHaveLength(1);
      await deliver();
      expect(await completions(s.user.id)).toEqual([
        { user_id: s.user.id, course_id: course.id, completed_at: last.completed_at, actor_id: s.user.id },
      ]);
    });

    it('a flagged pass awaits review; the accepting review completes the course', async () => {
      const { s, complete } = await path();
      await complete(0);
      await complete(1);
      const body = await startWith(s, required, 2);
      await s.agent
        .post(`${session(required.id, body.id)}/events`)
        .send({ events: [{ type: 'paste', occurred_at: new Date().toISOString() }] })
        .expect(202);
      await s.agent.post(`${session(required.id, body.id)}/submit`).expect(200);
      await deliver();
      expect(await enrollment(s)).toMatchObject({ status: 'active', exams: { required: 1, passed: 0 } });
      const reviewed = await teacher.agent
        .post(`${session(required.id, body.id)}/review`)
        .send({ decision: 'accept', reason: 'The paste was the learner’s own notes' })
        .expect(200);
      await deliver();
      expect(await enrollment(s)).toMatchObject({
        status: 'completed',
        completed_at: reviewed.body.review.reviewed_at,
      });
      expect(await certificates(s.user.id)).toHaveLength(1);
      expect((await completions(s.user.id))[0]).toMatchObject({ actor_id: teacher.user.id });
    });

    it('a pass at the deadline completes the course too (at the deadline)', async () => {
      const { s, complete } = await path();
      await complete(0);
      await complete(1);
      const body = await startWith(s, required, 2);
      await advance(t, 30 * MINUTE + 2_001, s, owner, teacher);
      await t.app.get(SchedulerService).enqueue(CLOSE_OVERDUE, t.clock.now());
      await waitUntil(async () => (await row(body.id)).status === 'submitted', { what: 'the deadline close' });
      await deliver();
      expect(await enrollment(s)).toMatchObject({ status: 'completed', completed_at: body.deadline_at });
      expect(await certificates(s.user.id)).toHaveLength(1);
    });
  });

  describe('personal data', () => {
    it('every exam table is registered; the export holds the person’s sessions without correct answers; erasure deletes them', async () => {
      const registry = t.app.get(PersonalDataRegistry);
      const covered = registry.coveredTables();
      for (const table of [
        'exam_sessions',
        'exam_session_questions',
        'exam_answers',
        'exam_proctoring_events',
        'exam_windows',
      ]) {
        expect(covered.get(table)).toBeDefined();
      }
      const { exam, s } = await setup({ questions_per_attempt: 2, questions: questions(2) });
      const body = await startWith(s, exam, 1);
      await s.agent
        .post(`${session(exam.id, body.id)}/events`)
        .send({ events: [{ type: 'focus_lost', occurred_at: new Date().toISOString(), detail: 'alt-tab' }] })
        .expect(202);
      await s.agent.post(`${session(exam.id, body.id)}/submit`).expect(200);
      await teacher.agent
        .post(`${session(exam.id, body.id)}/review`)
        .send({ decision: 'accept', reason: 'Fine' })
        .expect(200);
      const handlers = new Map(registry.handlers().map((h) => [`${h.area}.${h.key}`, h.handler]));
      const exported = await handlers.get('exams.sessions')!.export(s.user.id, t.db.manager);
      expect(exported).toEqual([
        expect.objectContaining({
          id: body.id,
          exam_id: exam.id,
          score: 50,
          review_status: 'accepted',
          review_reason: 'Fine',
          answers: [expect.objectContaining({ question_id: body.questions[0].id, seq: 1 })],
          proctoring_events: [expect.objectContaining({ type: 'focus_lost', detail: 'alt-tab', counted: true })],
        }),
      ]);
      expect([...deepKeys(exported)].filter((k) => ['correct', 'reviewed_by', 'questions'].includes(k))).toEqual([]);
      const staffExport = await handlers.get('exams.staff_actions')!.export(teacher.user.id, t.db.manager);
      expect(staffExport).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'exam_review', exam_id: exam.id, decision: 'accept' }),
        ]),
      );
      expect(await handlers.get('exams.staff_actions')!.export(owner.user.id, t.db.manager)).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: 'exam_window', exam_id: exam.id })]),
      );
      const transactions = t.app.get(TransactionRunner);
      await transactions.run((tx) =>
        handlers
          .get('exams.sessions')!
          .erase({ userId: s.user.id, tx, now: t.clock.now(), keepCertificateNames: false }),
      );
      for (const table of ['exam_sessions', 'exam_session_questions', 'exam_answers', 'exam_proctoring_events']) {
        const column = table === 'exam_sessions' ? 'id' : 'session_id';
        expect(await t.db.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [body.id])).toHaveLength(0);
      }
      await transactions.run((tx) =>
        handlers
          .get('exams.staff_actions')!
          .erase({ userId: owner.user.id, tx, now: t.clock.now(), keepCertificateNames: false }),
      );
      const windows = await t.db.query(`SELECT created_by FROM exam_windows WHERE exam_id = $1`, [exam.id]);
      expect(windows).toEqual([{ created_by: null }]);
    });
  });
});
