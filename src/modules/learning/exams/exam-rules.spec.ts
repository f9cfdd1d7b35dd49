import { randomInt } from 'node:crypto';
import {
  applyEvents,
  availabilityOf,
  deadlineOf,
  drawQuestions,
  isOverdue,
  isViolation,
  type PoolQuestion,
  type ProctoringSettings,
  shuffled,
  type WindowTimes,
} from './exam-rules';

const at = (iso: string): Date => new Date(iso);
const w = (opens: string, closes: string | null): WindowTimes => ({
  opens_at: at(opens),
  closes_at: closes === null ? null : at(closes),
});
const NOW = at('2026-11-24T10:00:00.000Z');

describe('availabilityOf', () => {
  it('not_scheduled without windows', () => {
    expect(availabilityOf([], NOW)).toEqual({ state: 'not_scheduled', opens_at: null, closes_at: null });
  });

  it('open while a window contains now: opens at its start, closes at its end (exclusive)', () => {
    const open = w('2026-11-24T09:00:00.000Z', '2026-11-24T11:00:00.000Z');
    expect(availabilityOf([open], NOW)).toEqual({ state: 'open', ...open });
    expect(availabilityOf([open], at('2026-11-24T09:00:00.000Z')).state).toBe('open');
    expect(availabilityOf([open], at('2026-11-24T10:59:59.999Z')).state).toBe('open');
    expect(availabilityOf([open], at('2026-11-24T11:00:00.000Z')).state).toBe('closed');
    expect(availabilityOf([open], at('2026-11-24T08:59:59.999Z')).state).toBe('upcoming');
  });

  it('open beats upcoming and closed; the span runs from the earliest opening to the latest closing', () => {
    const windows = [
      w('2026-11-23T09:00:00.000Z', '2026-11-23T11:00:00.000Z'),
      w('2026-11-24T09:30:00.000Z', '2026-11-24T12:00:00.000Z'),
      w('2026-11-24T08:00:00.000Z', '2026-11-24T10:30:00.000Z'),
      w('2026-11-25T09:00:00.000Z', null),
    ];
    expect(availabilityOf(windows, NOW)).toEqual({
      state: 'open',
      opens_at: at('2026-11-24T08:00:00.000Z'),
      closes_at: at('2026-11-24T12:00:00.000Z'),
    });
  });

  it('an open-ended open window makes the span open-ended', () => {
    const windows = [w('2026-11-24T09:00:00.000Z', '2026-11-24T12:00:00.000Z'), w('2026-11-20T00:00:00.000Z', null)];
    expect(availabilityOf(windows, NOW).closes_at).toBeNull();
  });

  it('upcoming names the next window to open; closed names the last one to close', () => {
    const past = w('2026-11-20T09:00:00.000Z', '2026-11-21T09:00:00.000Z');
    const later = w('2026-11-22T09:00:00.000Z', '2026-11-22T10:00:00.000Z');
    const next = w('2026-11-26T09:00:00.000Z', null);
    const afterNext = w('2026-11-27T09:00:00.000Z', '2026-11-28T09:00:00.000Z');
    expect(availabilityOf([past, afterNext, next], NOW)).toEqual({ state: 'upcoming', ...next });
    expect(availabilityOf([later, past], NOW)).toEqual({ state: 'closed', ...later });
  });
});

describe('deadlineOf', () => {
  const start = at('2026-11-24T10:00:00.000Z');

  it('start + duration without a window limit', () => {
    expect(deadlineOf(start, 45, [w('2026-11-24T09:00:00.000Z', null)])).toEqual(at('2026-11-24T10:45:00.000Z'));
    expect(deadlineOf(start, 45, [])).toEqual(at('2026-11-24T10:45:00.000Z'));
  });

  it('the latest closing of the open windows when it comes first', () => {
    const windows = [
      w('2026-11-24T09:00:00.000Z', '2026-11-24T10:20:00.000Z'),
      w('2026-11-24T09:30:00.000Z', '2026-11-24T10:30:00.000Z'),
    ];
    expect(deadlineOf(start, 45, windows)).toEqual(at('2026-11-24T10:30:00.000Z'));
    expect(deadlineOf(start, 20, windows)).toEqual(at('2026-11-24T10:20:00.000Z'));
  });

  it('an open-ended window lifts the window limit', () => {
    const windows = [w('2026-11-24T09:00:00.000Z', '2026-11-24T10:10:00.000Z'), w('2026-11-24T09:30:00.000Z', null)];
    expect(deadlineOf(start, 45, windows)).toEqual(at('2026-11-24T10:45:00.000Z'));
  });
});

describe('isOverdue', () => {
  it('is false up to deadline + 2000 ms inclusive and true 1 ms later', () => {
    const deadline = at('2026-11-24T10:00:00.000Z');
    expect(isOverdue(deadline, at('2026-11-24T10:00:02.000Z'))).toBe(false);
    expect(isOverdue(deadline, at('2026-11-24T10:00:02.001Z'))).toBe(true);
  });
});

function pool(n: number): PoolQuestion[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    prompt: `Question ${i}`,
    kind: 'single' as const,
    explanation: null,
    options: [
      { id: `q${i}a`, text: 'a', correct: true },
      { id: `q${i}b`, text: 'b', correct: false },
      { id: `q${i}c`, text: 'c', correct: false },
    ],
  }));
}

describe('drawQuestions', () => {
  it('draws the requested number of distinct questions of the pool', () => {
    const drawn = drawQuestions(pool(30), 10, { shuffleQuestions: true, shuffleOptions: true }, randomInt);
    expect(drawn).toHaveLength(10);
    expect(new Set(drawn.map((q) => q.id)).size).toBe(10);
    for (const q of drawn) expect(q.options.map((o) => o.id).sort()).toEqual([`${q.id}a`, `${q.id}b`, `${q.id}c`]);
  });

  it('keeps the pool order of the drawn questions and of their options when not shuffling', () => {
    const drawn = drawQuestions(pool(30), 10, { shuffleQuestions: false, shuffleOptions: false }, randomInt);
    const positions = drawn.map((q) => Number(q.id.slice(1)));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    for (const q of drawn) expect(q.options.map((o) => o.id)).toEqual([`${q.id}a`, `${q.id}b`, `${q.id}c`]);
  });

  it('draws every question with the same frequency and every order of options alike (chi-square, 12 000 draws)', () => {
    const counts = new Map<string, number>();
    const firstOption = new Map<string, number>();
    const draws = 12_000;
    for (let i = 0; i < draws; i++) {
      for (const q of drawQuestions(pool(6), 2, { shuffleQuestions: true, shuffleOptions: true }, randomInt)) {
        counts.set(q.id, (counts.get(q.id) ?? 0) + 1);
        const first = q.options[0].id.slice(-1);
        firstOption.set(first, (firstOption.get(first) ?? 0) + 1);
      }
    }
    const chi = (observed: number[], expected: number): number =>
      observed.reduce((sum, o) => sum + (o - expected) ** 2 / expected, 0);
    // 5 degrees of freedom: p = 0.001 at 20.5; 2 degrees: p = 0.001 at 13.8.
    expect(chi([...counts.values()], (draws * 2) / 6)).toBeLessThan(20.5);
    expect(chi([...firstOption.values()], (draws * 2) / 3)).toBeLessThan(13.8);
  });

  it('uses the random source it is given (reproducible with a fixed one)', () => {
    const zero = (): number => 0;
    const drawn = drawQuestions(pool(5), 3, { shuffleQuestions: true, shuffleOptions: true }, zero);
    // j = i + 0 keeps the identity; Fisher-Yates with j = 0 rotates the options.
    expect(drawn.map((q) => q.id)).toEqual(['q0', 'q1', 'q2']);
    expect(drawn[0].options.map((o) => o.id)).toEqual(shuffled(pool(1)[0].options, zero).map((o) => o.id));
  });
});

describe('proctoring', () => {
  const settings: ProctoringSettings = { fullscreen_required: false, max_focus_losses: 2, flag_paste: true };
  const t0 = at('2026-11-24T10:00:00.000Z');

  it('counts focus and visibility losses; fullscreen exits only when fullscreen is required', () => {
    expect(isViolation('focus_lost', settings)).toBe(true);
    expect(isViolation('visibility_hidden', settings)).toBe(true);
    expect(isViolation('fullscreen_exit', settings)).toBe(false);
    expect(isViolation('fullscreen_exit', { ...settings, fullscreen_required: true })).toBe(true);
    for (const type of ['paste', 'focus_gained', 'copy', 'heartbeat', 'network_offline'] as const) {
      expect(isViolation(type, settings)).toBe(false);
    }
  });

  it('flags focus_limit_exceeded when violations exceed the limit, once, at the event that crossed it', () => {
    const first = applyEvents(
      { violations: 0, flags: [] },
      ['focus_lost', 'focus_gained', 'visibility_hidden'],
      settings,
      t0,
    );
    expect(first).toEqual({ violations: 2, flags: [], counted: [true, false, true] });
    const t1 = at('2026-11-24T10:05:00.000Z');
    const second = applyEvents(first, ['focus_lost', 'focus_lost'], settings, t1);
    expect(second.violations).toBe(4);
    expect(second.flags).toEqual([{ code: 'focus_limit_exceeded', at: t1.toISOString() }]);
    const third = applyEvents(second, ['focus_lost'], settings, at('2026-11-24T10:06:00.000Z'));
    expect(third.flags).toEqual(second.flags);
  });

  it('a limit of 0 flags the first violation', () => {
    const r = applyEvents(
      { violations: 0, flags: [] },
      ['visibility_hidden'],
      { ...settings, max_focus_losses: 0 },
      t0,
    );
    expect(r.flags.map((f) => f.code)).toEqual(['focus_limit_exceeded']);
  });

  it('flags paste_detected when flag_paste, and never counts a paste as a violation', () => {
    expect(applyEvents({ violations: 0, flags: [] }, ['paste'], settings, t0)).toEqual({
      violations: 0,
      flags: [{ code: 'paste_detected', at: t0.toISOString() }],
      counted: [false],
    });
    expect(applyEvents({ violations: 0, flags: [] }, ['paste'], { ...settings, flag_paste: false }, t0).flags).toEqual(
      [],
    );
  });

  it('keeps flags raised earlier (ip_changed) and adds new ones after them', () => {
    const earlier = [{ code: 'ip_changed' as const, at: t0.toISOString() }];
    const r = applyEvents({ violations: 0, flags: earlier }, ['paste'], settings, at('2026-11-24T10:01:00.000Z'));
    expect(r.flags.map((f) => f.code)).toEqual(['ip_changed', 'paste_detected']);
  });
});
