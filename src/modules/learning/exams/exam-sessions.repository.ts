import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { db } from '@/core/database/db';
import { PoolQueries } from '@/core/database/pool-queries';
import type { Tx } from '@/core/database/transaction';
import type { Flag, PoolQuestion, ProctoringEventType, QuestionKind } from './exam-rules';
import type { Decision, ReviewStatus, SessionStatus } from './dto/session.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface SessionRow {
  id: string;
  organization_id: string;
  exam_id: string;
  course_id: string;
  user_id: string;
  attempt: number;
  status: SessionStatus;
  submitted_by: 'learner' | 'deadline' | null;
  started_at: Date;
  deadline_at: Date;
  submitted_at: Date | null;
  passing_score: number;
  fullscreen_required: boolean;
  max_focus_losses: number;
  flag_paste: boolean;
  score: number | null;
  passed: boolean | null;
  violations: number;
  flags: Flag[];
  flagged: boolean;
  client_fingerprints: string[];
  review_status: ReviewStatus;
  review_reason: string | null;
  review_allow_retake: boolean | null;
  reviewed_by: string | null;
  reviewed_at: Date | null;
  counts_as_attempt: boolean;
}

export interface SessionQuestionRow {
  session_id: string;
  question_id: string;
  position: number;
  prompt: string;
  kind: QuestionKind;
  explanation: string | null;
  options: { id: string; text: string; correct: boolean }[];
}

export interface AnswerRow {
  session_id: string;
  question_id: string;
  option_ids: string[];
  seq: number;
  saved_at: Date;
}

export interface EventRow {
  id: string;
  type: ProctoringEventType;
  occurred_at: Date;
  received_at: Date;
  detail: string | null;
  counted: boolean;
}

/**
 * The outcome of one autosave statement: the session's state as the save saw it (under its key-share lock), the
 * options of the question in this session (null when the session did not draw it), and the answer written (null
 * when nothing was written: refused, or a `seq` not above the stored one).
 */
export interface SaveOutcome {
  user_id: string;
  status: SessionStatus;
  deadline_at: Date;
  client_fingerprints: string[];
  question_option_ids: string[] | null;
  written: AnswerRow | null;
}

export interface MySessionSummary {
  exam_id: string;
  attempts_used: number;
  best_score: number | null;
  passed: boolean;
  active_session_id: string | null;
}

export interface SessionFilter {
  userIds?: string[];
  status?: SessionStatus;
  flagged?: boolean;
  reviewStatus?: ReviewStatus;
}

const SESSION_COLUMNS = `s.id, s.organization_id, s.exam_id, s.course_id, s.user_id, s.attempt, s.status, s.submitted_by,
  s.started_at, s.deadline_at, s.submitted_at, s.passing_score, s.fullscreen_required, s.max_focus_losses, s.flag_paste,
  s.score, s.passed, s.violations, s.flags, s.flagged, s.client_fingerprints, s.review_status, s.review_reason,
  s.review_allow_retake, s.reviewed_by, s.reviewed_at, s.counts_as_attempt`;

/** Lock strengths a session read can take (autosave's key-share lock is inside its own statement). */
export type SessionLock = 'update' | 'no key update';

/** A session that counts toward the exam being passed (extensions-v2 9.7). */
export const PASSING_SESSION = `s.status = 'submitted' AND s.passed AND s.review_status IN ('none', 'accepted')`;

/**
 * The autosave statement (parameters: session, organization, exam, question, user, option ids, seq, now, grace ms).
 * Exported for the benchmark's database baseline (bench/exams.mjs), which runs this very statement.
 */
export const SAVE_ANSWER_SQL = `WITH s AS (
     SELECT id, user_id, status, deadline_at, client_fingerprints FROM exam_sessions
     WHERE id = $1 AND ${orgEq(2)} AND exam_id = $3 FOR KEY SHARE
   ), q AS (
     SELECT ARRAY(SELECT (o->>'id')::uuid FROM jsonb_array_elements(options) o) AS option_ids
     FROM exam_session_questions WHERE session_id = $1 AND question_id = $4
   ), written AS (
     INSERT INTO exam_answers (session_id, question_id, organization_id, option_ids, seq, saved_at)
     SELECT s.id, $4, $2, $6::uuid[], $7, $8 FROM s, q
     WHERE s.user_id = $5 AND s.status = 'in_progress'
       AND $8::timestamptz <= s.deadline_at + $9 * interval '1 millisecond'
       AND $6::uuid[] <@ q.option_ids
     ON CONFLICT (session_id, question_id) DO UPDATE
       SET option_ids = EXCLUDED.option_ids, seq = EXCLUDED.seq, saved_at = EXCLUDED.saved_at
       WHERE exam_answers.seq < EXCLUDED.seq
     RETURNING option_ids::text[] AS option_ids, seq::float8 AS seq, saved_at
   )
   SELECT s.user_id, s.status, s.deadline_at, s.client_fingerprints, q.option_ids::text[] AS question_option_ids,
     w.option_ids, w.seq, w.saved_at
   FROM s LEFT JOIN q ON true LEFT JOIN written w ON true`;

/** Sessions and what hangs off them. Organization data: every query takes the organization id. */
@Injectable()
export class ExamSessionsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pool: PoolQueries,
  ) {}

  private db(tx?: Tx): EntityManager {
    return db(this.dataSource, tx);
  }

  async find(
    organizationId: string,
    examId: string,
    sessionId: string,
    options: { tx?: Tx; lock?: SessionLock } = {},
  ): Promise<SessionRow | null> {
    const lock = options.lock ? ` FOR ${options.lock.toUpperCase()}` : '';
    const rows = await this.db(options.tx).query<SessionRow[]>(
      `SELECT ${SESSION_COLUMNS} FROM exam_sessions s
       WHERE s.id = $1 AND ${orgEq(2, 's')} AND s.exam_id = $3${lock}`,
      [sessionId, organizationId, examId],
    );
    return rows[0] ?? null;
  }

  /** The person's session in progress of this exam, if any (`exam_sessions_active_uq`). */
  async activeOf(organizationId: string, examId: string, userId: string, tx?: Tx): Promise<SessionRow | null> {
    const rows = await this.db(tx).query<SessionRow[]>(
      `SELECT ${SESSION_COLUMNS} FROM exam_sessions s
       WHERE ${orgEq(1, 's')} AND s.exam_id = $2 AND s.user_id = $3 AND s.status = 'in_progress'`,
      [organizationId, examId, userId],
    );
    return rows[0] ?? null;
  }

  /** Attempts that count, and every session so far (the next attempt number). */
  async attempts(
    organizationId: string,
    examId: string,
    userId: string,
    tx: Tx,
  ): Promise<{ counted: number; total: number }> {
    const rows = await tx.manager.query<{ counted: number; total: number }[]>(
      `SELECT count(*) FILTER (WHERE counts_as_attempt)::int AS counted, count(*)::int AS total FROM exam_sessions
       WHERE ${orgEq(1)} AND user_id = $3 AND exam_id = $2`,
      [organizationId, examId, userId],
    );
    return rows[0] ?? { counted: 0, total: 0 };
  }

  async insert(
    s: {
      organizationId: string;
      examId: string;
      courseId: string;
      userId: string;
      attempt: number;
      startedAt: Date;
      deadlineAt: Date;
      passingScore: number;
      fullscreenRequired: boolean;
      maxFocusLosses: number;
      flagPaste: boolean;
      fingerprint: string | null;
      questions: PoolQuestion[];
    },
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO exam_sessions (organization_id, exam_id, course_id, user_id, attempt, started_at, deadline_at,
         passing_score, fullscreen_required, max_focus_losses, flag_paste, client_fingerprints)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [
        s.organizationId,
        s.examId,
        s.courseId,
        s.userId,
        s.attempt,
        s.startedAt,
        s.deadlineAt,
        s.passingScore,
        s.fullscreenRequired,
        s.maxFocusLosses,
        s.flagPaste,
        s.fingerprint ? [s.fingerprint] : [],
      ],
    );
    const id = rows[0].id;
    await tx.manager.query(
      `INSERT INTO exam_session_questions (session_id, question_id, organization_id, position, prompt, kind, explanation, options)
       SELECT $1, q.id, $2, q.position, q.prompt, q.kind, q.explanation, q.options
       FROM jsonb_to_recordset($3::jsonb) AS q(id uuid, position int, prompt text, kind text, explanation text, options jsonb)`,
      [
        id,
        s.organizationId,
        JSON.stringify(
          s.questions.map((q, i) => ({
            id: q.id,
            position: i + 1,
            prompt: q.prompt,
            kind: q.kind,
            explanation: q.explanation,
            options: q.options,
          })),
        ),
      ],
    );
    return id;
  }

  /** The drawn questions of these sessions, each session's in its order. */
  questionsOf(organizationId: string, sessionIds: string[], tx?: Tx): Promise<SessionQuestionRow[]> {
    if (sessionIds.length === 0) return Promise.resolve([]);
    return this.db(tx).query<SessionQuestionRow[]>(
      `SELECT session_id, question_id, position, prompt, kind, explanation, options FROM exam_session_questions
       WHERE ${orgEq(1)} AND session_id = ANY($2::uuid[]) ORDER BY session_id, position`,
      [organizationId, sessionIds],
    );
  }

  answersOf(organizationId: string, sessionIds: string[], tx?: Tx): Promise<AnswerRow[]> {
    if (sessionIds.length === 0) return Promise.resolve([]);
    return this.db(tx).query<AnswerRow[]>(
      `SELECT a.session_id, a.question_id, a.option_ids::text[] AS option_ids, a.seq::float8 AS seq, a.saved_at
       FROM exam_answers a JOIN exam_session_questions q ON q.session_id = a.session_id AND q.question_id = a.question_id
       WHERE ${orgEq(1, 'a')} AND a.session_id = ANY($2::uuid[]) ORDER BY a.session_id, q.position`,
      [organizationId, sessionIds],
    );
  }

  // Autosave.

  /**
   * One autosave in one statement (one round trip, no explicit transaction: the hot path of an exam). The session
   * row is read `FOR KEY SHARE`, so saves run side by side while a close (`FOR UPDATE`) waits for those in flight
   * and those after it see the session closed. The answer is written only for the session's learner, while it is in
   * progress and `now <= deadline_at + grace`, for a question the session drew and options of that question, and
   * only over a lower `seq`; the caller reads the reason of a refusal from the returned state.
   */
  async saveAnswer(a: {
    organizationId: string;
    examId: string;
    sessionId: string;
    questionId: string;
    userId: string;
    optionIds: string[];
    seq: number;
    now: Date;
    graceMs: number;
  }): Promise<SaveOutcome | null> {
    // A named statement on the driver's pool: parsed and planned once per connection (the certificate look-up's
    // measured gain), and no TypeORM query runner to take and release per save.
    const rows = await this.pool.query<
      Omit<SaveOutcome, 'written'> & { option_ids: string[] | null; seq: number | null; saved_at: Date | null }
    >('exams.save_answer', SAVE_ANSWER_SQL, [
      a.sessionId,
      a.organizationId,
      a.examId,
      a.questionId,
      a.userId,
      a.optionIds,
      a.seq,
      a.now,
      a.graceMs,
    ]);
    const row = rows[0];
    if (!row) return null;
    const { option_ids, seq, saved_at, ...state } = row;
    return {
      ...state,
      written:
        seq === null
          ? null
          : { session_id: a.sessionId, question_id: a.questionId, option_ids: option_ids!, seq, saved_at: saved_at! },
    };
  }

  /** The stored answer of a question (read fresh: the answer a stale save is told about). */
  async storedAnswer(organizationId: string, sessionId: string, questionId: string): Promise<AnswerRow | null> {
    const rows = await this.dataSource.query<AnswerRow[]>(
      `SELECT session_id, question_id, option_ids::text[] AS option_ids, seq::float8 AS seq, saved_at FROM exam_answers
       WHERE session_id = $1 AND question_id = $2 AND ${orgEq(3)}`,
      [sessionId, questionId, organizationId],
    );
    return rows[0] ?? null;
  }

  /**
   * Adds a client fingerprint to a session in progress; with a second distinct one the session gets `ip_changed`
   * (once) and, unless already pending or decided, awaits review.
   */
  async addFingerprint(
    organizationId: string,
    sessionId: string,
    fingerprint: string,
    now: Date,
    tx?: Tx,
  ): Promise<void> {
    await this.db(tx).query(
      `UPDATE exam_sessions SET
         client_fingerprints = array_append(client_fingerprints, $3),
         flags = CASE WHEN cardinality(client_fingerprints) >= 1 AND NOT flags @> '[{"code": "ip_changed"}]'
           THEN flags || jsonb_build_array(jsonb_build_object('code', 'ip_changed', 'at', $4::text)) ELSE flags END,
         review_status = CASE WHEN cardinality(client_fingerprints) >= 1 AND review_status = 'none' THEN 'pending'
           ELSE review_status END
       WHERE id = $2 AND ${orgEq(1)} AND status = 'in_progress' AND NOT ($3 = ANY(client_fingerprints))`,
      [organizationId, sessionId, fingerprint, now.toISOString()],
    );
  }

  // Proctoring.

  async insertEvents(
    organizationId: string,
    sessionId: string,
    events: { type: ProctoringEventType; occurredAt: Date; detail: string | null; counted: boolean }[],
    receivedAt: Date,
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO exam_proctoring_events (session_id, organization_id, type, occurred_at, received_at, ordinal, detail, counted)
       SELECT $1, $2, e.type, e.occurred_at, $3, e.ordinal - 1, e.detail, e.counted
       FROM unnest($4::text[], $5::timestamptz[], $6::text[], $7::boolean[]) WITH ORDINALITY
         AS e(type, occurred_at, detail, counted, ordinal)`,
      [
        sessionId,
        organizationId,
        receivedAt,
        events.map((e) => e.type),
        events.map((e) => e.occurredAt),
        events.map((e) => e.detail),
        events.map((e) => e.counted),
      ],
    );
  }

  async setProctoring(
    organizationId: string,
    sessionId: string,
    violations: number,
    flags: Flag[],
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE exam_sessions SET violations = $3, flags = $4::jsonb,
         review_status = CASE WHEN jsonb_array_length($4::jsonb) > 0 AND review_status = 'none' THEN 'pending'
           ELSE review_status END
       WHERE id = $2 AND ${orgEq(1)}`,
      [organizationId, sessionId, violations, JSON.stringify(flags)],
    );
  }

  eventPage(
    organizationId: string,
    sessionId: string,
    page: { limit: number; offset: number },
  ): Promise<[EventRow[], number]> {
    return Promise.all([
      this.dataSource.query<EventRow[]>(
        `SELECT id, type, occurred_at, received_at, detail, counted FROM exam_proctoring_events
         WHERE session_id = $2 AND ${orgEq(1)} ORDER BY received_at, ordinal LIMIT $3 OFFSET $4`,
        [organizationId, sessionId, page.limit, page.offset],
      ),
      this.dataSource
        .query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM exam_proctoring_events WHERE session_id = $2 AND ${orgEq(1)}`,
          [organizationId, sessionId],
        )
        .then((r) => r[0]?.n ?? 0),
    ]);
  }

  // Closing and review.

  async close(
    organizationId: string,
    sessionId: string,
    c: { submittedBy: 'learner' | 'deadline'; submittedAt: Date; score: number; passed: boolean },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE exam_sessions SET status = 'submitted', submitted_by = $3, submitted_at = $4, score = $5, passed = $6
       WHERE id = $2 AND ${orgEq(1)} AND status = 'in_progress'`,
      [organizationId, sessionId, c.submittedBy, c.submittedAt, c.score, c.passed],
    );
  }

  async review(
    organizationId: string,
    sessionId: string,
    r: { decision: Decision; reason: string; allowRetake: boolean; reviewerId: string; now: Date },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE exam_sessions SET review_status = $3, review_reason = $4, review_allow_retake = $5, reviewed_by = $6,
         reviewed_at = $7, counts_as_attempt = NOT $8
       WHERE id = $2 AND ${orgEq(1)}`,
      [
        organizationId,
        sessionId,
        r.decision === 'accept' ? 'accepted' : 'voided',
        r.reason,
        r.allowRetake,
        r.reviewerId,
        r.now,
        r.decision === 'void' && r.allowRetake,
      ],
    );
  }

  /** Sessions in progress past `before` (deadline + grace), oldest first (`exam_sessions_overdue_idx`). */
  overdue(before: Date, limit: number): Promise<{ id: string; organization_id: string; exam_id: string }[]> {
    return this.dataSource.query(
      `${tenancyExempt('cross-organization-job')} SELECT id, organization_id, exam_id FROM exam_sessions
       WHERE status = 'in_progress' AND deadline_at < $1 ORDER BY deadline_at LIMIT $2`,
      [before, limit],
    );
  }

  // Lists.

  async page(
    organizationId: string,
    examId: string,
    filter: SessionFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: SessionRow[]; total: number }> {
    const where = `s.exam_id = $1 AND ${orgEq(2, 's')}
      AND ($3::uuid[] IS NULL OR s.user_id = ANY($3::uuid[]))
      AND ($4::text IS NULL OR s.status = $4)
      AND ($5::boolean IS NULL OR s.flagged = $5)
      AND ($6::text IS NULL OR s.review_status = $6)`;
    const params = [
      examId,
      organizationId,
      filter.userIds ?? null,
      filter.status ?? null,
      filter.flagged ?? null,
      filter.reviewStatus ?? null,
    ];
    const [rows, count] = await Promise.all([
      this.dataSource.query<SessionRow[]>(
        `SELECT ${SESSION_COLUMNS} FROM exam_sessions s WHERE ${where}
         ORDER BY s.started_at DESC, s.id DESC LIMIT $7 OFFSET $8`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM exam_sessions s WHERE ${where}`, params),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  /** The caller's standing in each of these exams (`exam_sessions_member_idx`). */
  mine(organizationId: string, userId: string, examIds: string[]): Promise<MySessionSummary[]> {
    if (examIds.length === 0) return Promise.resolve([]);
    return this.dataSource.query<MySessionSummary[]>(
      `SELECT s.exam_id,
         count(*) FILTER (WHERE s.counts_as_attempt)::int AS attempts_used,
         max(s.score) FILTER (WHERE s.status = 'submitted' AND s.review_status <> 'voided') AS best_score,
         coalesce(bool_or(${PASSING_SESSION}), false) AS passed,
         (array_agg(s.id) FILTER (WHERE s.status = 'in_progress'))[1] AS active_session_id
       FROM exam_sessions s WHERE ${orgEq(1, 's')} AND s.user_id = $2 AND s.exam_id = ANY($3::uuid[])
       GROUP BY s.exam_id`,
      [organizationId, userId, examIds],
    );
  }

  /** The person's sessions in progress past `before` in the organization (closed on read). */
  async overdueOf(organizationId: string, userId: string, before: Date): Promise<{ id: string; exam_id: string }[]> {
    return this.dataSource.query(
      `SELECT id, exam_id FROM exam_sessions
       WHERE ${orgEq(1)} AND user_id = $2 AND status = 'in_progress' AND deadline_at < $3`,
      [organizationId, userId, before],
    );
  }

  /** extensions-v2 9.8: per course, its required published exams and how many this person passed here. */
  requirements(
    organizationId: string,
    userId: string,
    courseIds: readonly string[],
    tx?: Tx,
  ): Promise<{ course_id: string; required: number; passed: number }[]> {
    if (courseIds.length === 0) return Promise.resolve([]);
    return this.db(tx).query(
      `SELECT e.course_id, count(*)::int AS required,
         count(*) FILTER (WHERE EXISTS (SELECT 1 FROM exam_sessions s
           WHERE ${orgEq(1, 's')} AND s.user_id = $2 AND s.exam_id = e.id AND ${PASSING_SESSION}))::int AS passed
       FROM exams e
       WHERE e.course_id = ANY($3::uuid[]) AND e.status = 'published' AND e.required_for_completion
       GROUP BY e.course_id`,
      [organizationId, userId, courseIds],
    );
  }
}
