import { randomUUID } from 'node:crypto';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Membership } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { UserEntity } from '@/modules/identity/users/testing';
import { CertificatesService } from '@/modules/learning/certificates';
import { CatalogService } from '@/modules/learning/courses';
import { CoursesRepository } from '@/modules/learning/courses/testing';
import {
  type CreateExamDto,
  type ExamDto,
  ExamAuthoringService,
  ExamSessionsService,
  ExamsService,
} from '@/modules/learning/exams';
import {
  ExamAccess,
  ExamSessionsRepository,
  ExamsRepository,
  SessionNotDueYet,
} from '@/modules/learning/exams/testing';
import { ProgressService } from '@/modules/learning/progress';
import { ProgressRepository } from '@/modules/learning/progress/testing';
import { CohortsService, InstituteLinks } from '@/modules/tenancy/cohorts';
import { CohortsRepository } from '@/modules/tenancy/cohorts/testing';
import { PeopleService } from '@/modules/tenancy/members';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { PEOPLE } from '../../support/integration-neighbours';
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
 * Exam sessions (extensions-v2 9.3, 9.5) through the exams services and repositories on the real database: the
 * deadline (duration cut by the windows), saves until the 2 s grace, the close at the deadline by the job, the
 * safety net or any touch, grading of each question kind (no partial credit, half-up percent), the snapshot that an
 * edit does not regrade, and a void that gives the attempt back.
 */
describe('Exam deadlines and grading (integration)', () => {
  let it_: Integration;
  let sessions: ExamSessionsService;
  let authoring: ExamAuthoringService;
  let org: string;
  let owner: Membership;
  let courseId: string;

  beforeAll(async () => {
    it_ = await createIntegration({
      imports: [TypeOrmModule.forFeature([UserEntity])],
      providers: [
        ExamsRepository,
        ExamSessionsRepository,
        ExamAccess,
        ExamAuthoringService,
        ExamsService,
        ExamSessionsService,
        // What an exam reads of its neighbours: the course's reach, the enrollment, cohorts, people's names.
        CoursesRepository,
        CatalogService,
        ProgressRepository,
        ProgressService,
        CohortsRepository,
        CohortsService,
        ...PEOPLE,
        PeopleService,
        // Certificates follow a course completion, organizations and institutes manage cohorts: never reached here.
        { provide: CertificatesService, useValue: outOfScope('CertificatesService') },
        { provide: OrganizationsService, useValue: outOfScope('OrganizationsService') },
        { provide: InstituteLinks, useValue: outOfScope('InstituteLinks') },
      ],
    });
    sessions = it_.get(ExamSessionsService);
    authoring = it_.get(ExamAuthoringService);
    const o = await insertUser(it_.db);
    org = await insertOrganization(it_.db, o.id);
    owner = { organizationId: org, userId: o.id, role: 'owner' };
    const [course] = await it_.db.query<{ id: string }[]>(
      `INSERT INTO courses (slug, title, language, level, status, visibility, published_at)
       VALUES ($1, 'Algebra', 'en', 'beginner', 'published', 'public', now()) RETURNING id`,
      [`algebra-${randomUUID().slice(0, 8)}`],
    );
    courseId = course.id;
  });

  afterAll(async () => {
    await it_?.close();
  });

  const single = (prompt: string): CreateExamDto['questions'][number] => ({
    prompt,
    kind: 'single',
    options: [
      { text: 'right', correct: true },
      { text: 'wrong', correct: false },
      { text: 'other', correct: false },
    ],
  });

  /** A published exam, questions in the pool's order and options unshuffled, so positions are known. */
  async function exam(over: Partial<CreateExamDto> = {}): Promise<ExamDto> {
    return authoring.create(
      courseId,
      {
        title: `Exam ${randomUUID().slice(0, 6)}`,
        duration_minutes: 30,
        passing_score: 50,
        questions_per_attempt: 4,
        shuffle_questions: false,
        shuffle_options: false,
        status: 'published',
        questions: [1, 2, 3, 4].map((i) => single(`Q${i}?`)),
        ...over,
      },
      owner.userId,
    );
  }

  async function window(examId: string, opensAt: string, closesAt: string | null, cohortId: string | null = null) {
    await it_
      .get(ExamsService)
      .createWindow(owner, examId, { cohort_id: cohortId, opens_at: opensAt, closes_at: closesAt });
  }

  /** An enrolled student of the organization. */
  async function learner(): Promise<Membership> {
    const { id } = await insertUser(it_.db);
    await insertMember(it_.db, org, id);
    await it_.db.query(`INSERT INTO enrollments (organization_id, user_id, course_id) VALUES ($1, $2, $3)`, [
      org,
      id,
      courseId,
    ]);
    return { organizationId: org, userId: id, role: 'student' };
  }

  const right = (e: ExamDto, i: number): string[] => e.questions[i].options.filter((o) => o.correct).map((o) => o.id);
  const wrong = (e: ExamDto, i: number): string[] => [e.questions[i].options.find((o) => !o.correct)!.id];

  async function row(sessionId: string) {
    const [r] = await it_.db.query<
      {
        status: string;
        submitted_by: string | null;
        submitted_at: string | null;
        deadline_at: string;
        score: number | null;
        passed: boolean | null;
        counts_as_attempt: boolean;
        review_status: string;
      }[]
    >(
      `SELECT status, submitted_by, to_char(submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS submitted_at,
              to_char(deadline_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS deadline_at,
              score, passed, counts_as_attempt, review_status
       FROM exam_sessions WHERE id = $1`,
      [sessionId],
    );
    return r;
  }

  async function refusal(work: Promise<unknown>): Promise<{ status: number; code: string }> {
    const err = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return { status: (err as ApiError).status, code: (err as ApiError).code };
  }

  it('the deadline is start + duration, cut by the latest close of the windows open for the learner', async () => {
    clockAt(it_.clock, '2026-12-01T10:00:00Z');
    const e = await exam({ duration_minutes: 30 });
    const [cohort] = await it_.db.query<{ id: string }[]>(
      `INSERT INTO cohorts (organization_id, name) VALUES ($1, 'Group B') RETURNING id`,
      [org],
    );
    await window(e.id, '2026-12-01T09:00:00Z', '2026-12-01T10:20:00Z');
    await window(e.id, '2026-12-01T09:00:00Z', '2026-12-01T10:45:00Z', cohort.id);
    const outside = await learner();
    const inCohort = await learner();
    await it_.db.query(
      `INSERT INTO cohort_members (cohort_id, organization_id, user_id, role) VALUES ($1, $2, $3, 'student')`,
      [cohort.id, org, inCohort.userId],
    );

    // Only the organization-wide window applies: it closes at 10:20, before the 30 minutes run out.
    const a = await sessions.start(outside, e.id);
    expect(a).toMatchObject({
      attempt: 1,
      status: 'in_progress',
      started_at: '2026-12-01T10:00:00.000Z',
      deadline_at: '2026-12-01T10:20:00.000Z',
      remaining_ms: 20 * 60_000,
    });
    // Both apply: the latest close is 10:45, after the 30 minutes, so the duration sets the deadline.
    const b = await sessions.start(inCohort, e.id);
    expect(b.deadline_at).toBe('2026-12-01T10:30:00.000Z');

    // The close job is queued for the deadline plus the 2 s grace, once per session.
    const jobs = await it_.db.query<{ dedupe_key: string; run_after: Date }[]>(
      `SELECT dedupe_key, run_after FROM jobs WHERE dedupe_key = ANY($1) ORDER BY run_after`,
      [[`exams.close:${a.id}`, `exams.close:${b.id}`]],
    );
    expect(jobs.map((j) => [j.dedupe_key, j.run_after.toISOString()])).toEqual([
      [`exams.close:${a.id}`, '2026-12-01T10:20:02.000Z'],
      [`exams.close:${b.id}`, '2026-12-01T10:30:02.000Z'],
    ]);

    // Seven minutes later the server tells the learner what is left.
    clockAt(it_.clock, '2026-12-01T10:07:00Z');
    expect((await sessions.read(outside, e.id, a.id)).remaining_ms).toBe(13 * 60_000);
    // A second start while one is in progress is refused.
    expect(await refusal(sessions.start(outside, e.id))).toEqual({ status: 409, code: 'exam_session_active' });
    for (const [m, s] of [
      [outside, a],
      [inCohort, b],
    ] as const)
      await sessions.submit(m, e.id, s.id);

    // After every window closed, the exam is not open any more.
    clockAt(it_.clock, '2026-12-01T11:00:00Z');
    expect(await refusal(sessions.start(await learner(), e.id))).toEqual({ status: 409, code: 'exam_not_open' });
  });

  it('saves count until deadline + 2 s; the first touch after that closes the session at its deadline', async () => {
    clockAt(it_.clock, '2026-12-02T10:00:00Z');
    const e = await exam();
    await window(e.id, '2026-12-02T09:00:00Z', null);
    const m = await learner();
    const s = await sessions.start(m, e.id);
    expect(s.deadline_at).toBe('2026-12-02T10:30:00.000Z');
    expect(s.questions.map((q) => q.id)).toEqual(e.questions.map((q) => q.id));

    clockAt(it_.clock, '2026-12-02T10:10:00Z');
    await sessions.saveAnswer(m, e.id, s.id, e.questions[0].id, { option_ids: right(e, 0), seq: 1 });
    // The last millisecond of the grace: still saved, and the job is not due yet (it throws to be retried).
    clockAt(it_.clock, '2026-12-02T10:30:02.000Z');
    const saved = await sessions.saveAnswer(m, e.id, s.id, e.questions[1].id, { option_ids: right(e, 1), seq: 1 });
    expect(saved.saved_at).toBe('2026-12-02T10:30:02.000Z');
    await expect(sessions.closeAtDeadline(org, e.id, s.id)).rejects.toBeInstanceOf(SessionNotDueYet);
    expect((await row(s.id)).status).toBe('in_progress');

    // One millisecond later a save is refused and closes the session with the two saved answers (2 of 4: 50).
    clockAt(it_.clock, '2026-12-02T10:30:02.001Z');
    expect(
      await refusal(sessions.saveAnswer(m, e.id, s.id, e.questions[2].id, { option_ids: right(e, 2), seq: 1 })),
    ).toEqual({ status: 409, code: 'exam_session_closed' });
    expect(await row(s.id)).toMatchObject({
      status: 'submitted',
      submitted_by: 'deadline',
      submitted_at: '2026-12-02T10:30:00.000',
      score: 50,
      passed: true,
    });
    // Published with the deadline as its instant and no actor: the service closed it, not the learner.
    const [published] = await it_.db.query<{ actor_id: string | null; occurred_at: Date; payload: object }[]>(
      `SELECT actor_id, occurred_at, payload FROM domain_events WHERE name = 'exam.submitted' AND payload->>'session_id' = $1`,
      [s.id],
    );
    expect(published.actor_id).toBeNull();
    expect(published.occurred_at.toISOString()).toBe('2026-12-02T10:30:00.000Z');
    expect(published.payload).toMatchObject({ submitted_by: 'deadline', score: 50, passed: true, flagged: false });
    // The job that comes late finds it closed and does nothing; the learner's view shows the score (show_results).
    await sessions.closeAtDeadline(org, e.id, s.id);
    const view = await sessions.read(m, e.id, s.id);
    expect(view).toMatchObject({ remaining_ms: 0, result: { score: 50, passed: true }, corrections: null });
    expect(view.answers.map((a) => a.question_id)).toEqual([e.questions[0].id, e.questions[1].id]);
  });

  it('the safety net closes every overdue session; a submit after the grace counts as the deadline', async () => {
    clockAt(it_.clock, '2026-12-03T10:00:00Z');
    const e = await exam({ duration_minutes: 20, passing_score: 75 });
    await window(e.id, '2026-12-03T09:00:00Z', null);
    const [early, late, forgot1, forgot2] = [await learner(), await learner(), await learner(), await learner()];
    const started = new Map<Membership, string>();
    for (const m of [early, late, forgot1, forgot2]) started.set(m, (await sessions.start(m, e.id)).id);
    for (const i of [0, 1, 2])
      await sessions.saveAnswer(forgot1, e.id, started.get(forgot1)!, e.questions[i].id, {
        option_ids: right(e, i),
        seq: 1,
      });

    // Before the deadline, a submit is the learner's, at that moment.
    clockAt(it_.clock, '2026-12-03T10:19:00Z');
    const submitted = await sessions.submit(early, e.id, started.get(early)!);
    expect(submitted).toMatchObject({
      submitted_by: 'learner',
      submitted_at: '2026-12-03T10:19:00.000Z',
      result: { score: 0, passed: false },
    });
    // At the end of the grace nothing is overdue yet.
    clockAt(it_.clock, '2026-12-03T10:20:02.000Z');
    expect(await sessions.closeAllOverdue()).toBe(0);
    clockAt(it_.clock, '2026-12-03T10:25:00Z');
    // The learner who submits five minutes late is closed as by the deadline, at the deadline.
    expect(await sessions.submit(late, e.id, started.get(late)!)).toMatchObject({
      submitted_by: 'deadline',
      submitted_at: '2026-12-03T10:20:00.000Z',
    });
    // The two who never came back are closed by the schedule, with what they saved: 3 of 4 is 75, passed at 75.
    expect(await sessions.closeAllOverdue()).toBe(2);
    expect(await row(started.get(forgot1)!)).toMatchObject({
      submitted_by: 'deadline',
      submitted_at: '2026-12-03T10:20:00.000',
      score: 75,
      passed: true,
    });
    expect(await row(started.get(forgot2)!)).toMatchObject({ submitted_by: 'deadline', score: 0, passed: false });
    expect(await sessions.closeAllOverdue()).toBe(0);
  });

  describe('grading', () => {
    it('each kind: right only with exactly the correct options; no partial credit; unanswered is wrong', async () => {
      clockAt(it_.clock, '2026-12-04T10:00:00Z');
      const e = await exam({
        passing_score: 67,
        questions_per_attempt: 3,
        show_results: 'full',
        questions: [
          single('Capital of France?'),
          {
            prompt: 'Primes?',
            kind: 'multiple',
            options: [
              { text: '2', correct: true },
              { text: '3', correct: true },
              { text: '4', correct: false },
              { text: '6', correct: false },
            ],
          },
          {
            prompt: 'The sky is blue?',
            kind: 'true_false',
            options: [
              { text: 'True', correct: true },
              { text: 'False', correct: false },
            ],
            explanation: 'Rayleigh scattering.',
          },
        ],
      });
      await window(e.id, '2026-12-04T09:00:00Z', null);
      const [multiple, tf] = [e.questions[1], e.questions[2]];
      const [two, three, four] = multiple.options.map((o) => o.id);
      const answers: Record<string, [string[] | null, string[] | null, string[] | null]> = {
        all: [right(e, 0), [two, three], right(e, 2)],
        // One of the two primes: partly right is wrong. 2 of 3 is 66.67%, 67, passed at 67.
        partial: [right(e, 0), [two], right(e, 2)],
        // Both primes and a wrong one is wrong too; the true/false left unanswered is wrong. 1 of 3: 33.
        extra: [right(e, 0), [two, three, four], null],
        // The wrong side of a true/false, the single missed.
        none: [wrong(e, 0), null, wrong(e, 2)],
      };
      const results: Record<string, unknown> = {};
      for (const [name, picks] of Object.entries(answers)) {
        const m = await learner();
        const s = await sessions.start(m, e.id);
        for (const [i, optionIds] of picks.entries())
          if (optionIds) await sessions.saveAnswer(m, e.id, s.id, e.questions[i].id, { option_ids: optionIds, seq: 1 });
        const view = await sessions.submit(m, e.id, s.id);
        results[name] = { ...view.result, correct: view.corrections!.map((c) => c.correct) };
        if (name === 'extra') {
          expect(view.corrections![1]).toEqual({
            question_id: multiple.id,
            correct: false,
            correct_option_ids: [two, three],
            explanation: null,
          });
          expect(view.corrections![2]).toMatchObject({
            correct: false,
            correct_option_ids: [tf.options[0].id],
            explanation: 'Rayleigh scattering.',
          });
        }
      }
      expect(results).toEqual({
        all: { score: 100, passed: true, correct: [true, true, true] },
        partial: { score: 67, passed: true, correct: [true, false, true] },
        extra: { score: 33, passed: false, correct: [true, false, false] },
        none: { score: 0, passed: false, correct: [false, false, false] },
      });
    });

    it('the percent rounds half up (1 of 8 is 13) and passing is score >= passing_score', async () => {
      clockAt(it_.clock, '2026-12-05T10:00:00Z');
      const e = await exam({
        passing_score: 13,
        questions_per_attempt: 8,
        questions: [1, 2, 3, 4, 5, 6, 7, 8].map((i) => single(`R${i}?`)),
      });
      await window(e.id, '2026-12-05T09:00:00Z', null);
      const m = await learner();
      const s = await sessions.start(m, e.id);
      await sessions.saveAnswer(m, e.id, s.id, e.questions[3].id, { option_ids: right(e, 3), seq: 1 });
      await sessions.saveAnswer(m, e.id, s.id, e.questions[4].id, { option_ids: wrong(e, 4), seq: 1 });
      expect((await sessions.submit(m, e.id, s.id)).result).toEqual({ score: 13, passed: true });
    });

    it('grades the snapshot: an edit after the start does not regrade, and a stale seq does not overwrite', async () => {
      clockAt(it_.clock, '2026-12-06T10:00:00Z');
      const e = await exam();
      await window(e.id, '2026-12-06T09:00:00Z', null);
      const m = await learner();
      const s = await sessions.start(m, e.id);
      // The editor makes "wrong" the correct option of every question once the session has started.
      await authoring.update(
        courseId,
        e.id,
        {
          questions: [1, 2, 3, 4].map((i) => ({
            prompt: `Q${i}?`,
            kind: 'single' as const,
            options: [
              { text: 'right', correct: false },
              { text: 'wrong', correct: true },
              { text: 'other', correct: false },
            ],
          })),
        },
        owner.userId,
      );
      for (const i of [0, 1, 2])
        await sessions.saveAnswer(m, e.id, s.id, e.questions[i].id, { option_ids: right(e, i), seq: 2 });
      // A retry that arrives late (seq 1, the wrong option) is ignored and answers the stored answer.
      const stale = await sessions.saveAnswer(m, e.id, s.id, e.questions[0].id, { option_ids: wrong(e, 0), seq: 1 });
      expect(stale).toMatchObject({ option_ids: right(e, 0), seq: 2 });
      expect((await sessions.submit(m, e.id, s.id)).result).toEqual({ score: 75, passed: true });
    });
  });

  it('proctoring: violations counted by the settings, each flag raised once, a flagged session awaits review', async () => {
    clockAt(it_.clock, '2026-12-08T10:00:00Z');
    const e = await exam({ proctoring: { fullscreen_required: false, max_focus_losses: 2, flag_paste: true } });
    await window(e.id, '2026-12-08T09:00:00Z', null);
    const m = await learner();
    const s = await sessions.start(m, e.id);
    type EventType = Parameters<ExamSessionsService['recordEvents']>[3]['events'][number]['type'];
    const batch = (...types: EventType[]) => ({
      events: types.map((type) => ({ type, occurred_at: '2026-12-08T10:01:00.000Z' })),
    });
    clockAt(it_.clock, '2026-12-08T10:05:00Z');
    // fullscreen_exit is no violation when fullscreen is not required; paste flags but does not count.
    expect(
      await sessions.recordEvents(
        m,
        e.id,
        s.id,
        batch('focus_lost', 'fullscreen_exit', 'visibility_hidden', 'paste', 'focus_gained', 'paste'),
      ),
    ).toEqual({ accepted: 6, violations: 2, flagged: true });
    // Two violations do not exceed 2; the third does.
    clockAt(it_.clock, '2026-12-08T10:06:00Z');
    expect(await sessions.recordEvents(m, e.id, s.id, batch('focus_lost', 'heartbeat'))).toEqual({
      accepted: 2,
      violations: 3,
      flagged: true,
    });
    const [flags] = await it_.db.query<{ flags: { code: string; at: string }[]; review_status: string }[]>(
      `SELECT flags, review_status FROM exam_sessions WHERE id = $1`,
      [s.id],
    );
    expect(flags).toEqual({
      flags: [
        { code: 'paste_detected', at: '2026-12-08T10:05:00.000Z' },
        { code: 'focus_limit_exceeded', at: '2026-12-08T10:06:00.000Z' },
      ],
      review_status: 'pending',
    });
    // The learner sees only that the session is flagged; closing it leaves the review pending.
    for (const i of [0, 1, 2, 3])
      await sessions.saveAnswer(m, e.id, s.id, e.questions[i].id, { option_ids: right(e, i), seq: 1 });
    const view = await sessions.submit(m, e.id, s.id);
    expect(view).toMatchObject({ flagged: true, review_status: 'pending', result: { score: 100, passed: true } });
    expect(view).not.toHaveProperty('flags');
    expect(view).not.toHaveProperty('violations');
  });

  it('review: a void with allow_retake cancels the result and gives the attempt back; a decision is final', async () => {
    clockAt(it_.clock, '2026-12-07T10:00:00Z');
    const e = await exam({ max_attempts: 1 });
    await window(e.id, '2026-12-07T09:00:00Z', null);
    const { id: adminId } = await insertUser(it_.db);
    await insertMember(it_.db, org, adminId, 'admin');
    const admin: Membership = { organizationId: org, userId: adminId, role: 'admin' };
    const m = await learner();
    const first = await sessions.start(m, e.id);
    for (const i of [0, 1, 2, 3])
      await sessions.saveAnswer(m, e.id, first.id, e.questions[i].id, { option_ids: right(e, i), seq: 1 });
    await sessions.submit(m, e.id, first.id);
    expect(await refusal(sessions.start(m, e.id))).toEqual({ status: 409, code: 'exam_attempts_exhausted' });
    // Nobody reviews their own session; a session is reviewed once.
    expect((await refusal(sessions.review(m, e.id, first.id, { decision: 'void', reason: 'x' }))).status).toBe(403);

    clockAt(it_.clock, '2026-12-07T11:00:00Z');
    const voided = await sessions.review(admin, e.id, first.id, {
      decision: 'void',
      reason: 'Shared screen',
      allow_retake: true,
    });
    expect(voided).toMatchObject({
      review_status: 'voided',
      counts_as_attempt: false,
      review: { decision: 'void', allow_retake: true, reviewed_at: '2026-12-07T11:00:00.000Z' },
    });
    expect(await row(first.id)).toMatchObject({ review_status: 'voided', counts_as_attempt: false, score: 100 });
    // The learner no longer sees the cancelled score.
    expect((await sessions.read(m, e.id, first.id)).result).toBeNull();
    expect(
      await refusal(sessions.review(admin, e.id, first.id, { decision: 'accept', reason: 'Second thoughts' })),
    ).toEqual({ status: 409, code: 'exam_session_already_reviewed' });

    // The attempt given back: a second session, numbered 2; once it is used, none is left.
    const second = await sessions.start(m, e.id);
    expect(second.attempt).toBe(2);
    await sessions.submit(m, e.id, second.id);
    expect(await sessions.review(admin, e.id, second.id, { decision: 'accept', reason: 'Fine' })).toMatchObject({
      review_status: 'accepted',
      counts_as_attempt: true,
      result: { score: 0, passed: false },
    });
    expect(await refusal(sessions.start(m, e.id))).toEqual({ status: 409, code: 'exam_attempts_exhausted' });
  });
});
