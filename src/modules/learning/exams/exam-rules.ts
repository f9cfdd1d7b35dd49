/**
 * The rules of exams that need no database (extensions-v2 9.2 to 9.4), each a pure function so the unit tests can
 * walk their cases: availability from windows, the deadline, the draw, and proctoring counts and flags.
 */

/** Saves are accepted until `deadline_at + GRACE_MS` (network grace); a session is overdue strictly after it. */
export const GRACE_MS = 2_000;

export const SHOW_RESULTS = ['none', 'score', 'full'] as const;
export type ShowResults = (typeof SHOW_RESULTS)[number];

export const PROCTORING_EVENT_TYPES = [
  'focus_lost',
  'visibility_hidden',
  'fullscreen_exit',
  'paste',
  'focus_gained',
  'visibility_visible',
  'fullscreen_enter',
  'copy',
  'context_menu',
  'network_offline',
  'network_online',
  'heartbeat',
] as const;
export type ProctoringEventType = (typeof PROCTORING_EVENT_TYPES)[number];

export const FLAG_CODES = ['focus_limit_exceeded', 'paste_detected', 'ip_changed'] as const;
export type FlagCode = (typeof FLAG_CODES)[number];

export interface Flag {
  code: FlagCode;
  /** Server time of the event or request that raised it. */
  at: string;
}

// Availability (9.2).

export interface WindowTimes {
  opens_at: Date;
  closes_at: Date | null;
}

export type AvailabilityState = 'not_scheduled' | 'upcoming' | 'open' | 'closed';

export interface Availability {
  state: AvailabilityState;
  opens_at: Date | null;
  closes_at: Date | null;
}

export function isOpenAt(w: WindowTimes, now: Date): boolean {
  return w.opens_at.getTime() <= now.getTime() && (w.closes_at === null || now.getTime() < w.closes_at.getTime());
}

/**
 * For a learner, from the windows that apply to them: `open` when one contains now (its span: the earliest opening
 * and the latest closing of the open windows, null when one is open-ended), else `upcoming` when one lies ahead (the
 * next to open), else `closed` when all lie behind (the last to close), else `not_scheduled`.
 */
export function availabilityOf(windows: readonly WindowTimes[], now: Date): Availability {
  const open = windows.filter((w) => isOpenAt(w, now));
  if (open.length > 0) {
    const opensAt = new Date(Math.min(...open.map((w) => w.opens_at.getTime())));
    return { state: 'open', opens_at: opensAt, closes_at: latestClose(open) };
  }
  const ahead = windows
    .filter((w) => w.opens_at.getTime() > now.getTime())
    .sort((a, b) => a.opens_at.getTime() - b.opens_at.getTime());
  if (ahead.length > 0) return { state: 'upcoming', opens_at: ahead[0].opens_at, closes_at: ahead[0].closes_at };
  if (windows.length > 0) {
    const last = [...windows].sort((a, b) => b.closes_at!.getTime() - a.closes_at!.getTime())[0];
    return { state: 'closed', opens_at: last.opens_at, closes_at: last.closes_at };
  }
  return { state: 'not_scheduled', opens_at: null, closes_at: null };
}

/** The latest closing among windows; null when one of them is open-ended (or there is none: no limit). */
export function latestClose(windows: readonly WindowTimes[]): Date | null {
  if (windows.length === 0 || windows.some((w) => w.closes_at === null)) return null;
  return new Date(Math.max(...windows.map((w) => w.closes_at!.getTime())));
}

/**
 * `deadline_at = min(started_at + duration, latest closes_at of the open windows)` (9.3); an open-ended window sets
 * no limit of its own.
 */
export function deadlineOf(startedAt: Date, durationMinutes: number, openWindows: readonly WindowTimes[]): Date {
  const byDuration = startedAt.getTime() + durationMinutes * 60_000;
  const close = latestClose(openWindows);
  return new Date(close === null ? byDuration : Math.min(byDuration, close.getTime()));
}

/** Whether a session in progress is past its grace and must be closed (`submitted_by: deadline`). */
export function isOverdue(deadlineAt: Date, now: Date): boolean {
  return now.getTime() > deadlineAt.getTime() + GRACE_MS;
}

// The draw (9.3).

import type { QuestionKind } from '@/modules/learning/editor';

export type { QuestionKind };

export interface PoolQuestion {
  id: string;
  prompt: string;
  kind: QuestionKind;
  explanation: string | null;
  options: { id: string; text: string; correct: boolean }[];
}

/** A uniform integer in [0, max): `crypto.randomInt` in the service, a seeded source in tests. */
export type RandomInt = (max: number) => number;

/** Fisher-Yates on a copy. */
export function shuffled<T>(items: readonly T[], randomInt: RandomInt): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Draws `count` questions uniformly at random (a partial Fisher-Yates: every subset equally likely). With
 * `shuffleQuestions` they come in the drawn (random) order, else in the pool's order; with `shuffleOptions` each
 * question's options are shuffled too.
 */
export function drawQuestions(
  pool: readonly PoolQuestion[],
  count: number,
  options: { shuffleQuestions: boolean; shuffleOptions: boolean },
  randomInt: RandomInt,
): PoolQuestion[] {
  const indexes = pool.map((_, i) => i);
  const n = Math.min(count, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + randomInt(indexes.length - i);
    [indexes[i], indexes[j]] = [indexes[j], indexes[i]];
  }
  const chosen = indexes.slice(0, n);
  if (!options.shuffleQuestions) chosen.sort((a, b) => a - b);
  return chosen.map((i) => {
    const q = pool[i];
    return { ...q, options: options.shuffleOptions ? shuffled(q.options, randomInt) : [...q.options] };
  });
}

// Proctoring (9.4).

export interface ProctoringSettings {
  fullscreen_required: boolean;
  max_focus_losses: number;
  flag_paste: boolean;
}

/** Whether an event of this type counts as a violation under these settings. */
export function isViolation(type: ProctoringEventType, settings: ProctoringSettings): boolean {
  if (type === 'focus_lost' || type === 'visibility_hidden') return true;
  return type === 'fullscreen_exit' && settings.fullscreen_required;
}

/**
 * Counts a batch of events into the session's state: each violation adds one, `focus_limit_exceeded` is raised
 * when the violations exceed `max_focus_losses`, `paste_detected` on a paste when `flag_paste`. A flag is raised
 * once (its first time); the server never closes a session for them.
 */
export function applyEvents(
  state: { violations: number; flags: readonly Flag[] },
  types: readonly ProctoringEventType[],
  settings: ProctoringSettings,
  receivedAt: Date,
): { violations: number; flags: Flag[]; counted: boolean[] } {
  let violations = state.violations;
  const flags = [...state.flags];
  const raise = (code: FlagCode): void => {
    if (!flags.some((f) => f.code === code)) flags.push({ code, at: receivedAt.toISOString() });
  };
  const counted = types.map((type) => {
    const violation = isViolation(type, settings);
    if (violation) {
      violations++;
      if (violations > settings.max_focus_losses) raise('focus_limit_exceeded');
    }
    if (type === 'paste' && settings.flag_paste) raise('paste_detected');
    return violation;
  });
  return { violations, flags, counted };
}
