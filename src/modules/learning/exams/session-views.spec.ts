import type { SessionRow } from './exam-sessions.repository';
import { gradeSession, learnerView, type SessionParts, staffView } from './session-views';

const NOW = new Date('2026-11-24T10:10:00.000Z');
const person = { user_id: 'u1', username: 'ana', name: 'Ana', avatar_svg_url: 'x', anonymous: false };

function parts(over: Partial<SessionRow> = {}): SessionParts {
  const session: SessionRow = {
    id: 's1',
    organization_id: 'o1',
    exam_id: 'e1',
    course_id: 'c1',
    user_id: 'u1',
    attempt: 1,
    status: 'in_progress',
    submitted_by: null,
    started_at: new Date('2026-11-24T10:00:00.000Z'),
    deadline_at: new Date('2026-11-24T10:30:00.000Z'),
    submitted_at: null,
    passing_score: 50,
    fullscreen_required: false,
    max_focus_losses: 3,
    flag_paste: true,
    score: null,
    passed: null,
    violations: 0,
    flags: [],
    flagged: false,
    client_fingerprints: ['f1'],
    review_status: 'none',
    review_reason: null,
    review_allow_retake: null,
    reviewed_by: null,
    reviewed_at: null,
    counts_as_attempt: true,
    ...over,
  };
  return {
    session,
    questions: [
      {
        session_id: 's1',
        question_id: 'q1',
        position: 1,
        prompt: 'One?',
        kind: 'single',
        explanation: 'Because one.',
        options: [
          { id: 'a', text: 'A', correct: true },
          { id: 'b', text: 'B', correct: false },
        ],
      },
      {
        session_id: 's1',
        question_id: 'q2',
        position: 2,
        prompt: 'Two?',
        kind: 'multiple',
        explanation: null,
        options: [
          { id: 'c', text: 'C', correct: true },
          { id: 'd', text: 'D', correct: true },
          { id: 'e', text: 'E', correct: false },
        ],
      },
      {
        session_id: 's1',
        question_id: 'q3',
        position: 3,
        prompt: 'Three?',
        kind: 'true_false',
        explanation: null,
        options: [
          { id: 't', text: 'True', correct: false },
          { id: 'f', text: 'False', correct: true },
        ],
      },
    ],
    answers: [
      {
        session_id: 's1',
        question_id: 'q1',
        option_ids: ['a'],
        seq: 2,
        saved_at: new Date('2026-11-24T10:05:00.000Z'),
      },
      // Part of the correct options only: wrong.
      {
        session_id: 's1',
        question_id: 'q2',
        option_ids: ['c'],
        seq: 1,
        saved_at: new Date('2026-11-24T10:06:00.000Z'),
      },
      // Cleared: unanswered, wrong.
      { session_id: 's1', question_id: 'q3', option_ids: [], seq: 4, saved_at: new Date('2026-11-24T10:07:00.000Z') },
    ],
  };
}

const submitted = (over: Partial<SessionRow> = {}): SessionParts =>
  parts({
    status: 'submitted',
    submitted_by: 'learner',
    submitted_at: new Date('2026-11-24T10:08:00.000Z'),
    score: 33,
    passed: false,
    ...over,
  });

describe('gradeSession', () => {
  it('right only when the chosen options are exactly the correct ones; cleared answers count as unanswered', () => {
    const grade = gradeSession(parts());
    expect(grade.score).toBe(33);
    expect(grade.passed).toBe(false);
    expect(grade.results.map((r) => [r.question_id, r.correct])).toEqual([
      ['q1', true],
      ['q2', false],
      ['q3', false],
    ]);
  });

  it('refuses answers outside the snapshot (a broken invariant, never graded silently)', () => {
    const p = parts();
    p.answers.push({ session_id: 's1', question_id: 'q9', option_ids: ['z'], seq: 1, saved_at: NOW });
    expect(() => gradeSession(p)).toThrow(/outside its snapshot/);
  });
});

describe('learnerView', () => {
  it('in progress: the questions without any answer key, the time left by the server clock', () => {
    const view = learnerView(parts(), 'full', NOW);
    expect(view).toMatchObject({ status: 'in_progress', remaining_ms: 20 * 60_000, result: null, corrections: null });
    expect(view.server_now).toBe(NOW.toISOString());
    expect(view.questions[1]).toEqual({
      id: 'q2',
      position: 2,
      prompt: 'Two?',
      kind: 'multiple',
      options: [
        { id: 'c', text: 'C' },
        { id: 'd', text: 'D' },
        { id: 'e', text: 'E' },
      ],
    });
    expect(JSON.stringify(view)).not.toMatch(/"correct"|correct_option_ids|explanation|Because/);
    expect(view).not.toHaveProperty('person');
    expect(learnerView(parts(), 'full', new Date('2026-11-24T11:00:00.000Z')).remaining_ms).toBe(0);
  });

  it('after submitting: nothing with none, the score with score, also the corrections with full', () => {
    expect(learnerView(submitted(), 'none', NOW)).toMatchObject({ result: null, corrections: null, remaining_ms: 0 });
    expect(learnerView(submitted(), 'score', NOW)).toMatchObject({
      result: { score: 33, passed: false },
      corrections: null,
    });
    expect(learnerView(submitted(), 'full', NOW).corrections).toEqual([
      { question_id: 'q1', correct: true, correct_option_ids: ['a'], explanation: 'Because one.' },
      { question_id: 'q2', correct: false, correct_option_ids: ['c', 'd'], explanation: null },
      { question_id: 'q3', correct: false, correct_option_ids: ['f'], explanation: null },
    ]);
  });

  it('a voided session shows neither result nor corrections, whatever show_results says', () => {
    const view = learnerView(submitted({ review_status: 'voided', counts_as_attempt: false }), 'full', NOW);
    expect(view).toMatchObject({ result: null, corrections: null, review_status: 'voided', counts_as_attempt: false });
  });
});

describe('staffView', () => {
  it('carries result and corrections once closed only, plus proctoring and review details', () => {
    const open = staffView(
      parts({ flags: [{ code: 'paste_detected', at: NOW.toISOString() }], violations: 2 }),
      person,
      NOW,
      true,
    );
    expect(open).toMatchObject({
      result: null,
      person,
      violations: 2,
      flags: [{ code: 'paste_detected', at: NOW.toISOString() }],
      client_addresses_count: 1,
      review: null,
    });
    expect(open.corrections).toBeNull();
    const reviewed = staffView(
      submitted({
        review_status: 'voided',
        review_reason: 'Notes',
        review_allow_retake: true,
        reviewed_by: 'u2',
        reviewed_at: NOW,
      }),
      person,
      NOW,
      true,
    );
    expect(reviewed.corrections).toHaveLength(3);
    expect(reviewed.result).toEqual({ score: 33, passed: false });
    expect(reviewed.review).toEqual({
      decision: 'void',
      reason: 'Notes',
      allow_retake: true,
      reviewed_by: { user_id: 'u2' },
      reviewed_at: NOW.toISOString(),
    });
  });
});

describe('staffView answer keys (extensions-v3 6.1)', () => {
  it('organization staff get correct true|false per question, never correct_option_ids or explanation', () => {
    const view = staffView(submitted(), person, NOW, false);
    expect(view.corrections).toHaveLength(3);
    for (const c of view.corrections!) expect(Object.keys(c).sort()).toEqual(['correct', 'question_id']);
    expect(staffView(submitted(), person, NOW, true).corrections![0]).toHaveProperty('correct_option_ids');
  });
});
