/**
 * The rules of the single-player games (extensions-v2 7.1), as pure functions of a game's numbers and the server's
 * time. The service applies them under the game's row lock.
 */
export type GameMode = 'survival' | 'speed' | 'risk';
export type EndReason =
  'lives_exhausted' | 'time_up' | 'questions_exhausted' | 'question_limit' | 'points_exhausted' | 'abandoned';

export const MIN_QUESTIONS = 5;
/** An answer received after `deadline_at + GRACE_MS` is late. */
export const GRACE_MS = 1000;
/** A game untouched this long is abandoned. */
export const IDLE_MS = 10 * 60 * 1000;
export const SURVIVAL_LIVES = 3;
export const RISK_START_POINTS = 100;

export const QUESTION_MS: Record<GameMode, number> = { survival: 20_000, speed: 60_000, risk: 30_000 };
/** Questions drawn at the start: the mode's limit (survival 100, risk 10); speed cannot answer more than this in 60 s. */
export const DRAWN: Record<GameMode, number> = { survival: 100, speed: 300, risk: 10 };
export const QUESTION_LIMIT: Partial<Record<GameMode, number>> = { survival: 100, risk: 10 };

export interface GameNumbers {
  mode: GameMode;
  score: number;
  lives: number | null;
  questions_total: number;
  questions_answered: number;
  correct_answers: number;
  ends_at: Date | null;
}

/** Whether an answer or a request at `now` is past the question's grace. */
export function isLate(deadlineAt: Date, now: Date): boolean {
  return now.getTime() > deadlineAt.getTime() + GRACE_MS;
}

export function isIdle(touchedAt: Date, now: Date): boolean {
  return now.getTime() - touchedAt.getTime() >= IDLE_MS;
}

/** What a risk answer may wager: 1..points. */
export function validWager(points: number, wager: number): boolean {
  return Number.isInteger(wager) && wager >= 1 && wager <= points;
}

/** Points of an answer: survival +10 right; speed +10 right, -5 wrong (never below 0); risk +-wager. */
export function answerDelta(mode: GameMode, score: number, correct: boolean, wager: number | null): number {
  if (mode === 'survival') return correct ? 10 : 0;
  if (mode === 'speed') return correct ? 10 : -Math.min(5, score);
  return correct ? wager! : -Math.min(wager!, score);
}

/** Points lost by a late answer in risk: max(1, ceil(points / 10)), never below 0. */
export function lateLoss(points: number): number {
  return Math.min(points, Math.max(1, Math.ceil(points / 10)));
}

/** Applies one answered (or timed-out) question to the numbers. */
export function afterAnswer(
  g: GameNumbers,
  outcome: { correct: boolean; timedOut: boolean; delta: number },
): GameNumbers {
  const lostLife = g.mode === 'survival' && !outcome.correct;
  return {
    ...g,
    score: Math.max(0, g.score + outcome.delta),
    lives: g.lives === null ? null : g.lives - (lostLife ? 1 : 0),
    questions_answered: g.questions_answered + 1,
    correct_answers: g.correct_answers + (outcome.correct ? 1 : 0),
  };
}

/** Why the game ends after this question, or null when it goes on (speed: the 60 s are checked by the caller). */
export function endAfter(g: GameNumbers, now: Date): EndReason | null {
  if (g.mode === 'survival' && (g.lives ?? 0) <= 0) return 'lives_exhausted';
  if (g.mode === 'risk' && g.score <= 0) return 'points_exhausted';
  if (g.mode === 'speed' && g.ends_at && now.getTime() >= g.ends_at.getTime()) return 'time_up';
  const limit = QUESTION_LIMIT[g.mode];
  if (limit !== undefined && g.questions_answered >= limit) return 'question_limit';
  if (g.questions_answered >= g.questions_total) return 'questions_exhausted';
  return null;
}

/** XP a finished game is worth (extensions-v2 3.2, before the ledger's daily cap): min(30, floor(score / 10)). */
export function xpWorth(score: number): number {
  return Math.min(30, Math.floor(score / 10));
}
