import { type Card, createEmptyCard, fsrs, type FSRS, generatorParameters, Rating, State } from 'ts-fsrs';
import { addDays, localDate, startOfLocalDate } from '@/core/time/local-time';

export type SchedulerName = 'sm2' | 'fsrs';
export type FsrsStateName = 'new' | 'learning' | 'review' | 'relearning';

/** SM-2 state (extensions-v2 6.3): the ease factor is kept in integer hundredths so it is exact. */
export interface Sm2State {
  repetitions: number;
  ease_hundredths: number;
  interval_days: number;
}

export const SM2_START: Sm2State = { repetitions: 0, ease_hundredths: 250, interval_days: 0 };

/** The ease factor's change per grade 0..5, in hundredths: -0.80, -0.54, -0.32, -0.14, 0, +0.10. */
const SM2_EASE_DELTA = [-80, -54, -32, -14, 0, 10];

/**
 * One SM-2 review (6.3). q >= 3: I = 1 (n = 0), 6 (n = 1), else round(I * EF) with the EF before the review, half
 * up, computed in integers; n grows. q < 3: n = 0, I = 1. Then, for every grade, EF changes by the table above and
 * never falls below 1.30.
 */
export function sm2Next(state: Sm2State, grade: number): Sm2State {
  let { repetitions, interval_days } = state;
  if (grade >= 3) {
    if (repetitions === 0) interval_days = 1;
    else if (repetitions === 1) interval_days = 6;
    else interval_days = Math.round((interval_days * state.ease_hundredths) / 100);
    repetitions += 1;
  } else {
    repetitions = 0;
    interval_days = 1;
  }
  const ease_hundredths = Math.max(130, state.ease_hundredths + SM2_EASE_DELTA[grade]);
  return { repetitions, ease_hundredths, interval_days };
}

/** The grade 0..5 as an FSRS rating (6.4): 0, 1, 2 Again; 3 Hard; 4 Good; 5 Easy. */
export function fsrsRating(grade: number): Rating.Again | Rating.Hard | Rating.Good | Rating.Easy {
  if (grade <= 2) return Rating.Again;
  if (grade === 3) return Rating.Hard;
  if (grade === 4) return Rating.Good;
  return Rating.Easy;
}

const FSRS_STATES: Record<State, FsrsStateName> = {
  [State.New]: 'new',
  [State.Learning]: 'learning',
  [State.Review]: 'review',
  [State.Relearning]: 'relearning',
};

export function fsrsStateName(state: State): FsrsStateName {
  return FSRS_STATES[state];
}

const engines = new Map<number, FSRS>();

/** The FSRS engine of 6.4 for a desired retention: whole days, no fuzz, no short-term steps (deterministic). */
export function fsrsEngine(desiredRetention: number, weights?: readonly number[]): FSRS {
  const retention = Math.round(desiredRetention * 100) / 100;
  const params = {
    request_retention: retention,
    maximum_interval: 36500,
    enable_fuzz: false,
    enable_short_term: false,
  };
  // Tests pass the weights of ts-fsrs's own reference examples; the service uses the library's defaults (FSRS-6).
  if (weights) return fsrs(generatorParameters({ ...params, w: [...weights] }));
  let engine = engines.get(retention);
  if (!engine) {
    engine = fsrs(generatorParameters(params));
    engines.set(retention, engine);
  }
  return engine;
}

/** A stored ts-fsrs card (JSON: dates as ISO strings) back as a card. */
export function fsrsCardFrom(stored: Record<string, unknown>): Card {
  return {
    ...(stored as unknown as Card),
    due: new Date(stored.due as string),
    last_review: stored.last_review ? new Date(stored.last_review as string) : undefined,
  };
}

/** What a review changes, whichever scheduler: the scheduler's state and the interval in whole days. */
export interface ScheduledState {
  scheduler: SchedulerName;
  reviews: number;
  lapses: number;
  ever_correct: boolean;
  last_reviewed_at: Date;
  due_on: string;
  due_at: Date;
  sm2: Sm2State | null;
  fsrs: Card | null;
}

export interface Settings {
  scheduler: SchedulerName;
  desiredRetention: number;
  /** FSRS weights; absent: ts-fsrs's defaults (only tests pass others). */
  weights?: readonly number[];
}

/**
 * Applies one review to a state (null: a new card) with the person's scheduler. The interval I gives
 * `due_on` = the local date of the review + I and `due_at` = the start of that date in the person's zone (6.2).
 * `lapses` counts grades below 3 given to a card that had been answered correctly before. A state of the other
 * scheduler is never converted: a change of scheduler replays the review log instead (6.4).
 */
export function review(
  before: ScheduledState | null,
  grade: number,
  at: Date,
  zone: string,
  settings: Settings,
): ScheduledState {
  const lapse = grade < 3 && (before?.ever_correct ?? false);
  let interval: number;
  let sm2: Sm2State | null = null;
  let card: Card | null = null;
  if (settings.scheduler === 'sm2') {
    sm2 = sm2Next(before?.sm2 ?? SM2_START, grade);
    interval = sm2.interval_days;
  } else {
    const engine = fsrsEngine(settings.desiredRetention, settings.weights);
    card = engine.next(before?.fsrs ?? createEmptyCard(at), at, fsrsRating(grade)).card;
    interval = card.scheduled_days;
  }
  const dueOn = addDays(localDate(at, zone), interval);
  return {
    scheduler: settings.scheduler,
    reviews: (before?.reviews ?? 0) + 1,
    lapses: (before?.lapses ?? 0) + (lapse ? 1 : 0),
    ever_correct: (before?.ever_correct ?? false) || grade >= 3,
    last_reviewed_at: at,
    due_on: dueOn,
    due_at: startOfLocalDate(dueOn, zone),
    sm2,
    fsrs: card,
  };
}

/** Replays a card's review log (same grades, same times) from a new card through the chosen scheduler (6.4). */
export function replay(
  log: readonly { grade: number; reviewed_at: Date }[],
  zone: string,
  settings: Settings,
): ScheduledState | null {
  let state: ScheduledState | null = null;
  for (const entry of log) state = review(state, entry.grade, entry.reviewed_at, zone, settings);
  return state;
}

/** `get_retrievability` at read time (6.4), 0..1. */
export function retrievability(card: Card, now: Date, desiredRetention: number): number {
  return fsrsEngine(desiredRetention).get_retrievability(card, now, false);
}
