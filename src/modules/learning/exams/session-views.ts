import { gradeQuiz, type QuestionResult } from '@/modules/learning/progress';
import type { ShowResults } from './exam-rules';
import type { AnswerRow, SessionQuestionRow, SessionRow } from './exam-sessions.repository';
import type { ExamSessionDto, PersonDto } from './dto/session.dto';

/** What a view of one session is built from. */
export interface SessionParts {
  session: SessionRow;
  questions: SessionQuestionRow[];
  answers: AnswerRow[];
}

/**
 * Grades a session's answers against its snapshot with the built quiz rule (a question is right when the chosen
 * options are exactly the correct ones; unanswered is wrong; integer percent, half up; passed at `score >=
 * passing_score`). Answers were checked against the snapshot when saved, so a problem here is a broken invariant.
 */
export function gradeSession(parts: SessionParts): { score: number; passed: boolean; results: QuestionResult[] } {
  const graded = gradeQuiz(
    {
      passing_score: parts.session.passing_score,
      questions: parts.questions.map((q) => ({ id: q.question_id, explanation: q.explanation, options: q.options })),
    },
    parts.answers
      .filter((a) => a.option_ids.length > 0)
      .map((a) => ({ question_id: a.question_id, option_ids: a.option_ids })),
  );
  if ('problems' in graded) {
    throw new Error(
      `Session ${parts.session.id} holds answers outside its snapshot: ${JSON.stringify(graded.problems)}`,
    );
  }
  return graded.grade;
}

function corrections(parts: SessionParts, answerKeys = true): ExamSessionDto['corrections'] {
  return gradeSession(parts).results.map((r) =>
    answerKeys
      ? {
          question_id: r.question_id,
          correct: r.correct,
          correct_option_ids: r.correct_option_ids,
          explanation: r.explanation,
        }
      : { question_id: r.question_id, correct: r.correct },
  );
}

function baseView(parts: SessionParts, now: Date): ExamSessionDto {
  const s = parts.session;
  const open = s.status === 'in_progress';
  return {
    id: s.id,
    exam_id: s.exam_id,
    attempt: s.attempt,
    status: s.status,
    submitted_by: s.submitted_by,
    started_at: s.started_at.toISOString(),
    deadline_at: s.deadline_at.toISOString(),
    submitted_at: s.submitted_at?.toISOString() ?? null,
    server_now: now.toISOString(),
    remaining_ms: open ? Math.max(0, s.deadline_at.getTime() - now.getTime()) : 0,
    // The options without `correct`, and no explanation: nothing here gives an answer away.
    questions: parts.questions.map((q) => ({
      id: q.question_id,
      position: q.position,
      prompt: q.prompt,
      kind: q.kind,
      options: q.options.map((o) => ({ id: o.id, text: o.text })),
    })),
    answers: parts.answers.map((a) => ({
      question_id: a.question_id,
      option_ids: a.option_ids,
      seq: a.seq,
      saved_at: a.saved_at.toISOString(),
    })),
    flagged: s.flagged,
    review_status: s.review_status,
    counts_as_attempt: s.counts_as_attempt,
    result: null,
    corrections: null,
  };
}

/**
 * The learner's view: no correct answer while in progress; once graded, what `show_results` allows (nothing, the
 * score, or also the corrections). A voided session shows neither: its score is cancelled, and its corrections
 * would hand the answers to a retake.
 */
export function learnerView(parts: SessionParts, showResults: ShowResults, now: Date): ExamSessionDto {
  const view = baseView(parts, now);
  const s = parts.session;
  if (s.status !== 'submitted' || s.review_status === 'voided' || showResults === 'none') return view;
  view.result = { score: s.score!, passed: s.passed! };
  if (showResults === 'full') view.corrections = corrections(parts);
  return view;
}

/**
 * The staff view: the result and the corrections once the session is closed, plus the proctoring and review
 * details (extensions-v3 6.1). Every exam is authored by the platform and shared by every organization, so the
 * answer keys (`correct_option_ids`, `explanation`) go to platform admins only: organization staff see per question
 * whether the learner was right. Never while in progress: staff could otherwise sit the exam with a second account
 * and read the keys of their own session as it runs.
 */
export function staffView(parts: SessionParts, person: PersonDto, now: Date, answerKeys: boolean): ExamSessionDto {
  const view = baseView(parts, now);
  const s = parts.session;
  if (s.status === 'submitted') {
    view.result = { score: s.score!, passed: s.passed! };
    view.corrections = corrections(parts, answerKeys);
  }
  view.person = person;
  view.violations = s.violations;
  view.flags = s.flags.map((f) => ({ code: f.code, at: f.at }));
  view.client_addresses_count = s.client_fingerprints.length;
  view.review =
    s.review_status === 'accepted' || s.review_status === 'voided'
      ? {
          decision: s.review_status === 'accepted' ? 'accept' : 'void',
          reason: s.review_reason ?? '',
          allow_retake: s.review_allow_retake ?? false,
          reviewed_by: { user_id: s.reviewed_by },
          reviewed_at: s.reviewed_at!.toISOString(),
        }
      : null;
  return view;
}

/** Splits batched rows by session. */
export function bySession<T extends { session_id: string }>(rows: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) map.set(row.session_id, [...(map.get(row.session_id) ?? []), row]);
  return map;
}
