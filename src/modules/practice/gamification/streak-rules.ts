import { addDays, weekday } from '@/core/time/local-time';

/**
 * The streak (extensions-v2 3.4) as a small state machine over local dates (`YYYY-MM-DD` compare as strings).
 * `runCount` counts the active days of the unbroken run of active or frozen days ending at `runLast`, evaluated up
 * to `evaluatedThrough` (always a day before "today" when it was evaluated); Monday grants are applied up to
 * `grantsThrough` (today included: "the start of every local Monday" grants).
 */
export interface StreakState {
  runCount: number;
  runLast: string | null;
  longest: number;
  freezes: number;
  firstActiveOn: string | null;
  lastActiveOn: string | null;
  evaluatedThrough: string | null;
  grantsThrough: string | null;
}

export const FREEZES_CAP = 2;
export const STREAK_MILESTONES = [7, 30, 100, 365] as const;

export const EMPTY_STREAK: StreakState = {
  runCount: 0,
  runLast: null,
  longest: 0,
  freezes: 0,
  firstActiveOn: null,
  lastActiveOn: null,
  evaluatedThrough: null,
  grantsThrough: null,
};

const maxDate = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : a > b ? a : b;

/**
 * Walks the days not evaluated yet up to the day before `today`, in order: a Monday grants a freeze first; then a
 * day without activity right after an active or frozen day is frozen if a freeze is held, else the run breaks.
 * Returns the new state and the days it froze.
 */
export function evaluate(
  state: StreakState,
  today: string,
  isActive: (date: string) => boolean,
): { state: StreakState; frozen: string[] } {
  const s = { ...state };
  const frozen: string[] = [];
  if (s.firstActiveOn === null) return { state: s, frozen };
  const yesterday = addDays(today, -1);
  const evaluatedFrom = s.evaluatedThrough ?? addDays(s.firstActiveOn, -1);
  const grantedFrom = s.grantsThrough ?? s.firstActiveOn;
  let d = addDays(evaluatedFrom < grantedFrom ? evaluatedFrom : grantedFrom, 1);
  for (; d <= today; d = addDays(d, 1)) {
    if (d > grantedFrom && d > s.firstActiveOn && weekday(d) === 1) s.freezes = Math.min(FREEZES_CAP, s.freezes + 1);
    if (d <= evaluatedFrom || d > yesterday) continue;
    if (isActive(d)) {
      s.runCount = s.runLast !== null && s.runLast === addDays(d, -1) ? s.runCount + 1 : 1;
      s.runLast = d;
      s.longest = Math.max(s.longest, s.runCount);
    } else if (s.runLast !== null && s.runLast === addDays(d, -1)) {
      if (s.freezes > 0) {
        s.freezes--;
        s.runLast = d;
        frozen.push(d);
      } else {
        s.runCount = 0;
        s.runLast = null;
      }
    }
  }
  s.grantsThrough = maxDate(s.grantsThrough, today);
  s.evaluatedThrough = maxDate(s.evaluatedThrough, yesterday);
  return { state: s, frozen };
}

/** The first activity ever grants a freeze (3.4); later activity only moves `lastActiveOn`. */
export function recordActive(state: StreakState, date: string): StreakState {
  const s = { ...state };
  if (s.firstActiveOn === null) {
    s.firstActiveOn = date;
    s.freezes = Math.min(FREEZES_CAP, s.freezes + 1);
    s.grantsThrough = date;
    s.evaluatedThrough = addDays(date, -1);
  }
  s.lastActiveOn = maxDate(s.lastActiveOn, date);
  return s;
}

/** `current` on `today` for an evaluated state: the run ending yesterday (or today), plus today when active. */
export function currentStreak(state: StreakState, today: string, todayActive: boolean): number {
  const yesterday = addDays(today, -1);
  const alive = state.runLast !== null && state.runLast >= yesterday;
  const base = alive ? state.runCount : 0;
  const todayCounted = state.evaluatedThrough !== null && today <= state.evaluatedThrough;
  return todayActive && !todayCounted ? base + 1 : base;
}
