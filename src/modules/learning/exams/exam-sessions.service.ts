import { readAll } from '@/core/database/db';
import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { JobsService } from '@/core/queue/jobs.service';
import { anonymousPerson, PeopleService } from '@/modules/tenancy/members';
import { ExamAccess } from './exam-access';
import { applyEvents, deadlineOf, drawQuestions, GRACE_MS, isOpenAt, isOverdue } from './exam-rules';
import { CLOSE_SESSION } from './exams.jobs';
import { type SessionFilter, type SessionRow, ExamSessionsRepository } from './exam-sessions.repository';
import type { ExamRow } from './exams.repository';
import { ExamsRepository } from './exams.repository';
import type {
  ExamSessionDto,
  PersonDto,
  ProctoringEventDto,
  ProctoringEventsAcceptedDto,
  ProctoringEventsInputDto,
  ReviewInputDto,
  SavedAnswerDto,
  SaveAnswerDto,
  SessionListQueryDto,
} from './dto/session.dto';
import type { PageQueryDto } from '@/core/http/pagination';
import { isForeignKeyViolation, isUniqueViolation } from '@/core/database/constraint-violation';
import { idOr404 } from './ids';
import { bySession, gradeSession, learnerView, type SessionParts, staffView } from './session-views';

const sessionClosed = (): ApiError =>
  ApiError.conflict('exam_session_closed', 'The session is closed: it was submitted or its time is over.');
const sessionActive = (): ApiError =>
  ApiError.conflict('exam_session_active', 'You have a session of this exam in progress: continue it.');
const OVERDUE_BATCH = 200;

/** Thrown by the close job when it runs before the session's grace is over by the Clock (it is retried). */
export class SessionNotDueYet extends Error {
  constructor(sessionId: string) {
    super(`Exam session ${sessionId} is not past its deadline and grace yet`);
    this.name = 'SessionNotDueYet';
  }
}

/** Who is asking about a session: its learner, a member who oversees its learner, or neither. */
type Standing = 'learner' | 'staff' | 'none';

/**
 * Exam sessions (extensions-v2 9.3 to 9.5): start, autosave, proctoring events, submit, closing at the deadline,
 * grading, review, and the lists. Time is the server's Clock only.
 *
 * Row locks keep "graded once, with every acknowledged answer" true under concurrency: an autosave reads its
 * session `FOR KEY SHARE` (saves run side by side), proctoring events `FOR NO KEY UPDATE` (one batch at a time),
 * and closing and review `FOR UPDATE`, which waits for the saves in flight; a save that comes after finds the session
 * closed. A session past its deadline and grace is closed by whoever touches it first: the delayed job queued at the
 * start, the safety-net schedule, or any request.
 */
@Injectable()
export class ExamSessionsService {
  private readonly logger = new Logger('ExamSessions');

  constructor(
    private readonly sessions: ExamSessionsRepository,
    private readonly exams: ExamsRepository,
    private readonly access: ExamAccess,
    private readonly people: PeopleService,
    private readonly audit: AuditService,
    private readonly events: DomainEvents,
    private readonly jobs: JobsService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  // Learner.

  /**
   * Starts a session: enrolled here (403 `not_enrolled`), a window applying to the learner open now (409
   * `exam_not_open`), no session in progress (409 `exam_session_active`), attempts left (409
   * `exam_attempts_exhausted`). Draws the questions, fixes the deadline and queues the close at deadline + 2 s.
   */
  async start(member: Membership, examId: string, ip?: string): Promise<ExamSessionDto> {
    const { organizationId, userId } = member;
    const fingerprint = this.fingerprint(ip);
    const { exam, reach } = await this.access.visibleExam(member, examId);
    if (!reach.enrollment) throw ApiError.forbidden('Enroll in the course first.', 'not_enrolled');
    await this.closeOverdueOf(member);
    const now = this.clock.now();
    const applying = await this.exams.windowsOf(organizationId, [exam.id], await this.access.studentCohorts(member));
    const open = applying.filter((w) => isOpenAt(w, now));
    if (open.length === 0) throw ApiError.conflict('exam_not_open', 'The exam is not open for you now.');
    const deadlineAt = deadlineOf(now, exam.duration_minutes, open);
    const drawn = drawQuestions(
      exam.questions,
      exam.questions_per_attempt,
      { shuffleQuestions: exam.shuffle_questions, shuffleOptions: exam.shuffle_options },
      randomInt,
    );
    const sessionId = await this.transactions
      .run(async (tx) => {
        if (await this.sessions.activeOf(organizationId, exam.id, userId, tx)) throw sessionActive();
        const attempts = await this.sessions.attempts(organizationId, exam.id, userId, tx);
        if (attempts.counted >= exam.max_attempts) {
          throw ApiError.conflict('exam_attempts_exhausted', 'Every allowed attempt of this exam is used.');
        }
        const id = await this.sessions.insert(
          {
            organizationId,
            examId: exam.id,
            courseId: exam.course_id,
            userId,
            attempt: attempts.total + 1,
            startedAt: now,
            deadlineAt,
            passingScore: exam.passing_score,
            fullscreenRequired: exam.fullscreen_required,
            maxFocusLosses: exam.max_focus_losses,
            flagPaste: exam.flag_paste,
            fingerprint,
            questions: drawn,
          },
          tx,
        );
        await this.jobs.enqueue(
          CLOSE_SESSION,
          { session_id: id, exam_id: exam.id },
          {
            organizationId,
            tx,
            runAt: new Date(deadlineAt.getTime() + GRACE_MS),
            dedupeKey: `exams.close:${id}`,
          },
        );
        return id;
      })
      .catch((err: unknown) => {
        // A concurrent start won (one session in progress, one row per attempt number).
        if (isUniqueViolation(err)) throw sessionActive();
        // The exam was deleted, or the membership removed, in between.
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return this.viewFor(member, await this.parts(organizationId, exam.id, sessionId), exam);
  }

  async read(
    member: Membership,
    examId: string,
    sessionId: string,
    ip?: string,
    answerKeys = false,
  ): Promise<ExamSessionDto> {
    const fingerprint = this.fingerprint(ip);
    const exam = await this.access.anyExam(examId);
    let session = await this.sessions.find(member.organizationId, exam.id, idOr404(sessionId));
    const standing = session ? await this.standing(member, session) : 'none';
    if (!session || standing === 'none') throw ApiError.notFound();
    session = await this.closeIfOverdue(session);
    if (standing === 'learner' && fingerprint) await this.noteClient(session, fingerprint);
    return this.viewFor(member, await this.parts(member.organizationId, exam.id, session.id), exam, answerKeys);
  }

  /**
   * Saves one answer until `deadline_at + 2000 ms` by the server's clock. A `seq` not above the stored one changes
   * nothing and answers the stored answer. A session past the grace is closed by this request (409).
   */
  async saveAnswer(
    member: Membership,
    examId: string,
    sessionId: string,
    questionId: string,
    dto: SaveAnswerDto,
    ip?: string,
  ): Promise<SavedAnswerDto> {
    const { organizationId } = member;
    const fingerprint = this.fingerprint(ip);
    const [eid, sid, qid] = [idOr404(examId), idOr404(sessionId), idOr404(questionId)];
    const optionIds = [...new Set(dto.option_ids.map((id) => id.toLowerCase()))];
    const now = this.clock.now();
    const outcome = await this.sessions.saveAnswer({
      organizationId,
      examId: eid,
      sessionId: sid,
      questionId: qid,
      userId: member.userId,
      optionIds,
      seq: dto.seq,
      now,
      graceMs: GRACE_MS,
    });
    // Nothing was written unless every check below passes (the statement applies the same conditions).
    if (!outcome || outcome.user_id !== member.userId) throw await this.notTheLearner(member, outcome?.user_id ?? null);
    if (outcome.status !== 'in_progress') throw sessionClosed();
    if (isOverdue(outcome.deadline_at, now)) {
      await this.closeSession(organizationId, eid, sid, 'deadline', null);
      throw sessionClosed();
    }
    if (outcome.question_option_ids === null) throw ApiError.notFound('This question is not part of the session.');
    if (optionIds.some((id) => !outcome.question_option_ids!.includes(id))) {
      throw ApiError.validation([{ field: 'option_ids', message: 'option_ids must be options of this question' }]);
    }
    if (fingerprint && !outcome.client_fingerprints.includes(fingerprint)) {
      await this.sessions.addFingerprint(organizationId, sid, fingerprint, now);
    }
    // A seq not above the stored one: the stored answer stands and is returned.
    const answer = outcome.written ?? (await this.sessions.storedAnswer(organizationId, sid, qid));
    if (!answer) throw ApiError.notFound(); // only if the session was erased in between
    return {
      question_id: answer.question_id,
      option_ids: answer.option_ids,
      seq: answer.seq,
      saved_at: answer.saved_at.toISOString(),
    };
  }

  /** Stores a batch of proctoring events and counts them (9.4); never closes a session for them. */
  async recordEvents(
    member: Membership,
    examId: string,
    sessionId: string,
    dto: ProctoringEventsInputDto,
    ip?: string,
  ): Promise<ProctoringEventsAcceptedDto> {
    const { organizationId } = member;
    const fingerprint = this.fingerprint(ip);
    const [eid, sid] = [idOr404(examId), idOr404(sessionId)];
    const now = this.clock.now();
    const outcome = await this.transactions.run(async (tx) => {
      const s = await this.sessions.find(organizationId, eid, sid, { tx, lock: 'no key update' });
      if (!s || s.user_id !== member.userId) return { refused: s?.user_id ?? null } as const;
      if (s.status !== 'in_progress') throw sessionClosed();
      if (isOverdue(s.deadline_at, now)) return { overdue: true } as const;
      const applied = applyEvents(
        { violations: s.violations, flags: s.flags },
        dto.events.map((e) => e.type),
        s,
        now,
      );
      await this.sessions.insertEvents(
        organizationId,
        sid,
        dto.events.map((e, i) => ({
          type: e.type,
          occurredAt: new Date(e.occurred_at),
          detail: e.detail ?? null,
          counted: applied.counted[i],
        })),
        now,
        tx,
      );
      await this.sessions.setProctoring(organizationId, sid, applied.violations, applied.flags, tx);
      if (fingerprint && !s.client_fingerprints.includes(fingerprint)) {
        await this.sessions.addFingerprint(organizationId, sid, fingerprint, now, tx);
      }
      const after = await this.sessions.find(organizationId, eid, sid, { tx });
      return { violations: after!.violations, flagged: after!.flagged } as const;
    });
    if ('refused' in outcome) throw await this.notTheLearner(member, outcome.refused ?? null);
    if ('overdue' in outcome) {
      await this.closeSession(organizationId, eid, sid, 'deadline', null);
      throw sessionClosed();
    }
    return { accepted: dto.events.length, ...outcome };
  }

  /** Closes and grades the session; a closed session answers as it is (idempotent). */
  async submit(member: Membership, examId: string, sessionId: string, ip?: string): Promise<ExamSessionDto> {
    const fingerprint = this.fingerprint(ip);
    const exam = await this.access.anyExam(examId);
    const session = await this.sessions.find(member.organizationId, exam.id, idOr404(sessionId));
    if (!session || session.user_id !== member.userId) throw await this.notTheLearner(member, session?.user_id ?? null);
    if (session.status === 'in_progress') {
      if (fingerprint) await this.noteClient(session, fingerprint);
      await this.closeSession(member.organizationId, exam.id, session.id, 'learner', member.userId);
    }
    return this.viewFor(member, await this.parts(member.organizationId, exam.id, session.id), exam);
  }

  // Staff.

  /**
   * Accepts or voids a closed session (9.5). Owner/admin, or a teacher of the learner's cohort; never one's own
   * session (403). A void cancels score and pass; with `allow_retake` the attempt is given back.
   */
  async review(
    member: Membership,
    examId: string,
    sessionId: string,
    dto: ReviewInputDto,
    ip?: string,
    answerKeys = false,
  ): Promise<ExamSessionDto> {
    const allowRetake = dto.allow_retake ?? false;
    if (allowRetake && dto.decision !== 'void') {
      throw ApiError.validation([{ field: 'allow_retake', message: 'allow_retake is only for a void decision' }]);
    }
    const { organizationId } = member;
    const exam = await this.access.anyExam(examId);
    const found = await this.sessions.find(organizationId, exam.id, idOr404(sessionId));
    if (!found) throw ApiError.notFound();
    if (found.user_id === member.userId) throw ApiError.forbidden('Nobody reviews their own exam session.');
    if (!(await this.access.oversees(member, found.user_id))) {
      throw ApiError.forbidden("Only owners, admins and the learner's teachers review this session.");
    }
    await this.closeIfOverdue(found);
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      const s = await this.sessions.find(organizationId, exam.id, found.id, { tx, lock: 'update' });
      if (!s) throw ApiError.notFound();
      if (s.status === 'in_progress') {
        throw ApiError.conflict('exam_session_in_progress', 'The session is still in progress: review it once closed.');
      }
      if (s.review_status === 'accepted' || s.review_status === 'voided') {
        throw ApiError.conflict('exam_session_already_reviewed', 'The session was already reviewed.');
      }
      await this.sessions.review(
        organizationId,
        s.id,
        { decision: dto.decision, reason: dto.reason, allowRetake, reviewerId: member.userId, now },
        tx,
      );
      await this.audit.record(
        {
          action: 'exam_session.reviewed',
          actorId: member.userId,
          organizationId,
          targetType: 'exam_session',
          targetId: s.id,
          ip,
          metadata: { decision: dto.decision, allow_retake: allowRetake, reason: dto.reason, score: s.score },
        },
        tx,
      );
      const accepted = dto.decision === 'accept';
      await this.events.publish(
        tx,
        'exam.reviewed',
        {
          session_id: s.id,
          exam_id: s.exam_id,
          course_id: s.course_id,
          user_id: s.user_id,
          decision: dto.decision,
          allow_retake: allowRetake,
          score: accepted ? s.score : null,
          passed: accepted && s.passed === true,
        },
        { organizationId, actorId: member.userId, occurredAt: now },
      );
    });
    return this.viewFor(member, await this.parts(organizationId, exam.id, found.id), exam, answerKeys);
  }

  /**
   * Sessions of an exam, most recent first: a member's own (learner view), plus for owners and admins everyone's
   * and for teachers their cohorts' students' (staff view). Filters narrow that scope; a filter outside it is 403.
   */
  async list(
    member: Membership,
    examId: string,
    query: SessionListQueryDto,
    answerKeys = false,
  ): Promise<Page<ExamSessionDto>> {
    const exam = await this.access.anyExam(examId);
    const scope = await this.access.staffScope(member);
    let userIds: string[] | undefined;
    if (scope.kind === 'none') {
      if (query.cohort_id || (query.user_id && query.user_id.toLowerCase() !== member.userId)) {
        throw ApiError.forbidden('Learners see their own sessions only.');
      }
      userIds = [member.userId];
    } else if (scope.kind === 'students') {
      userIds = [member.userId, ...scope.ids];
    }
    if (query.cohort_id) {
      const cohort = await this.access.cohortHere(member, query.cohort_id);
      if (scope.kind === 'students' && !(await this.access.taughtCohorts(member)).includes(cohort)) {
        throw ApiError.forbidden('You do not teach that cohort.');
      }
      const students = new Set(await this.access.studentsOf(member, cohort));
      userIds = (userIds ?? [...students]).filter((id) => students.has(id));
    }
    if (query.user_id) {
      const wanted = query.user_id.toLowerCase();
      if (scope.kind === 'students' && wanted !== member.userId && !scope.ids.has(wanted)) {
        throw ApiError.forbidden('That person is not a student of your cohorts.');
      }
      userIds = (userIds ?? [wanted]).filter((id) => id === wanted);
    }
    const filter: SessionFilter = {
      userIds,
      status: query.status,
      flagged: query.flagged,
      reviewStatus: query.review_status,
    };
    let { rows, total } = await this.sessions.page(member.organizationId, exam.id, filter, query);
    const overdue = rows.filter((r) => r.status === 'in_progress' && isOverdue(r.deadline_at, this.clock.now()));
    if (overdue.length > 0) {
      // Listing touches them: apply the transition first (2.3), then read the page again.
      for (const s of overdue) await this.closeSession(s.organization_id, s.exam_id, s.id, 'deadline', null);
      ({ rows, total } = await this.sessions.page(member.organizationId, exam.id, filter, query));
    }
    return toPage(await this.views(member, exam, rows, answerKeys), total, query);
  }

  /** A session's proctoring events by reception (staff who oversee its learner; 403 otherwise). */
  async eventPage(
    member: Membership,
    examId: string,
    sessionId: string,
    page: PageQueryDto,
  ): Promise<Page<ProctoringEventDto>> {
    const exam = await this.access.anyExam(examId);
    const session = await this.sessions.find(member.organizationId, exam.id, idOr404(sessionId));
    if (!session) throw ApiError.notFound();
    if (!(await this.access.oversees(member, session.user_id))) {
      throw ApiError.forbidden("Only owners, admins and the learner's teachers see these events.");
    }
    const [rows, total] = await this.sessions.eventPage(member.organizationId, session.id, page);
    return toPage(
      rows.map((e) => ({
        id: e.id,
        type: e.type,
        occurred_at: e.occurred_at.toISOString(),
        received_at: e.received_at.toISOString(),
        detail: e.detail,
        counted: e.counted,
      })),
      total,
      page,
    );
  }

  // Closing.

  /**
   * Closes and grades a session in progress, once: under the row lock, with the answers saved so far. `deadline`
   * closes only a session past its grace (returns false otherwise); a learner's submit after the grace counts as a
   * deadline close. Publishes `exam.submitted` in the same transaction.
   */
  async closeSession(
    organizationId: string,
    examId: string,
    sessionId: string,
    by: 'learner' | 'deadline',
    actorId: string | null,
  ): Promise<boolean> {
    return this.transactions.run(async (tx) => {
      const s = await this.sessions.find(organizationId, examId, sessionId, { tx, lock: 'update' });
      if (!s || s.status !== 'in_progress') return true;
      const now = this.clock.now();
      const overdue = isOverdue(s.deadline_at, now);
      if (by === 'deadline' && !overdue) return false;
      const submittedBy = overdue ? 'deadline' : by;
      const [questions, answers] = await readAll(tx, [
        () => this.sessions.questionsOf(organizationId, [s.id], tx),
        () => this.sessions.answersOf(organizationId, [s.id], tx),
      ]);
      const { score, passed } = gradeSession({ session: s, questions, answers });
      // A deadline close ends the session at its deadline, whenever the job, the schedule or a request got to it.
      const submittedAt = submittedBy === 'deadline' ? s.deadline_at : now;
      await this.sessions.close(organizationId, s.id, { submittedBy, submittedAt, score, passed }, tx);
      await this.events.publish(
        tx,
        'exam.submitted',
        {
          session_id: s.id,
          exam_id: s.exam_id,
          course_id: s.course_id,
          user_id: s.user_id,
          score,
          passed,
          flagged: s.flagged,
          submitted_by: submittedBy,
        },
        { organizationId, actorId: submittedBy === 'learner' ? actorId : null, occurredAt: submittedAt },
      );
      return true;
    });
  }

  /** The delayed job: closes the session at its deadline (throws while it is not due by the Clock, to be retried). */
  async closeAtDeadline(organizationId: string, examId: string, sessionId: string): Promise<void> {
    if (!(await this.closeSession(organizationId, examId, sessionId, 'deadline', null))) {
      throw new SessionNotDueYet(sessionId);
    }
  }

  /** The safety net: closes every session past its deadline and grace, in bounded batches. */
  async closeAllOverdue(): Promise<number> {
    let closed = 0;
    for (let batch = 0; batch < 50; batch++) {
      const due = await this.sessions.overdue(new Date(this.clock.nowMs() - GRACE_MS), OVERDUE_BATCH);
      for (const s of due) {
        try {
          if (await this.closeSession(s.organization_id, s.exam_id, s.id, 'deadline', null)) closed++;
        } catch (err) {
          // One broken session must not hold back the others; the next run tries it again.
          this.logger.error({ err, session_id: s.id }, 'Could not close an overdue exam session');
        }
      }
      if (due.length < OVERDUE_BATCH) break;
    }
    return closed;
  }

  /** Closes the member's own sessions past their grace (reads apply the transition first, 2.3). */
  async closeOverdueOf(member: Membership): Promise<void> {
    const due = await this.sessions.overdueOf(
      member.organizationId,
      member.userId,
      new Date(this.clock.nowMs() - GRACE_MS),
    );
    for (const s of due) await this.closeSession(member.organizationId, s.exam_id, s.id, 'deadline', null);
  }

  // Helpers.

  /** Client addresses are compared by their audit fingerprint (a keyed hash), never stored in clear. */
  private fingerprint(ip?: string): string | null {
    return ip ? this.audit.ipFingerprint(ip) : null;
  }

  private async closeIfOverdue(session: SessionRow): Promise<SessionRow> {
    if (session.status !== 'in_progress' || !isOverdue(session.deadline_at, this.clock.now())) return session;
    await this.closeSession(session.organization_id, session.exam_id, session.id, 'deadline', null);
    return (await this.sessions.find(session.organization_id, session.exam_id, session.id)) ?? session;
  }

  /** Records the client address of the learner's request on a session in progress (`ip_changed` on a second). */
  private async noteClient(session: SessionRow, fingerprint: string): Promise<void> {
    if (session.status !== 'in_progress' || session.client_fingerprints.includes(fingerprint)) return;
    await this.sessions.addFingerprint(session.organization_id, session.id, fingerprint, this.clock.now());
  }

  /** A learner-only write by someone else: 403 for staff who oversee the learner, 404 for anyone else. */
  private async notTheLearner(member: Membership, learnerId: string | null): Promise<ApiError> {
    if (learnerId && (await this.access.oversees(member, learnerId))) {
      return ApiError.forbidden('Only the learner of this session may do this.');
    }
    return ApiError.notFound();
  }

  private async standing(member: Membership, session: SessionRow): Promise<Standing> {
    if (session.user_id === member.userId) return 'learner';
    return (await this.access.oversees(member, session.user_id)) ? 'staff' : 'none';
  }

  private async parts(organizationId: string, examId: string, sessionId: string): Promise<SessionParts> {
    const session = await this.sessions.find(organizationId, examId, sessionId);
    if (!session) throw ApiError.notFound();
    const [questions, answers] = await Promise.all([
      this.sessions.questionsOf(organizationId, [sessionId]),
      this.sessions.answersOf(organizationId, [sessionId]),
    ]);
    return { session, questions, answers };
  }

  /** `answerKeys`: the caller is a platform admin (extensions-v3 6.1: only they see the platform's answer keys). */
  private async viewFor(
    member: Membership,
    parts: SessionParts,
    exam: ExamRow,
    answerKeys = false,
  ): Promise<ExamSessionDto> {
    const now = this.clock.now();
    if (parts.session.user_id === member.userId) return learnerView(parts, exam.show_results, now);
    const [person] = await this.persons([parts.session.user_id]);
    return staffView(parts, person, now, answerKeys);
  }

  private async views(
    member: Membership,
    exam: ExamRow,
    rows: SessionRow[],
    answerKeys: boolean,
  ): Promise<ExamSessionDto[]> {
    const ids = rows.map((r) => r.id);
    const [questions, answers] = await Promise.all([
      this.sessions.questionsOf(member.organizationId, ids),
      this.sessions.answersOf(member.organizationId, ids),
    ]);
    const q = bySession(questions);
    const a = bySession(answers);
    const others = [...new Set(rows.map((r) => r.user_id).filter((id) => id !== member.userId))];
    const people = new Map((await this.persons(others)).map((p) => [p.user_id, p]));
    const now = this.clock.now();
    return rows.map((session) => {
      const parts = { session, questions: q.get(session.id) ?? [], answers: a.get(session.id) ?? [] };
      return session.user_id === member.userId
        ? learnerView(parts, exam.show_results, now)
        : staffView(parts, people.get(session.user_id) ?? anonymousPerson(), now, answerKeys);
    });
  }

  /** People as staff see them (2.2: staff always see the people they oversee). */
  private async persons(userIds: string[]): Promise<PersonDto[]> {
    const named = await this.people.named(userIds);
    return userIds.map((id) => named.get(id) ?? anonymousPerson());
  }
}
