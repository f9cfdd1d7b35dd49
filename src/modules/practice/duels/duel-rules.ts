/** The rules of a duel (extensions-v2 8.1), pure. */

export const DUEL_ROUNDS = 5;
export const DUEL_XP = { win: 15, draw: 5, loss: 0 } as const;
/** Late answers within this much after the deadline still count (network slack, 8.3). */
export const ANSWER_GRACE_MS = 250;
/** Pending challenges expire after 24 h; ready duels after 5 minutes (8.1). */
export const PENDING_TTL_MS = 24 * 3600_000;
export const READY_TTL_MS = 5 * 60_000;
/** At most this many pending challenges sent by one person (8.1). */
export const MAX_PENDING_SENT = 20;
/** A queued player without a match for this long leaves the queue (`queue:timeout`). */
export const QUEUE_TIMEOUT_MS = 60_000;

export type DuelStatus =
  'pending' | 'ready' | 'active' | 'finished' | 'declined' | 'cancelled' | 'expired' | 'abandoned';
export type DuelRole = 'challenger' | 'opponent';
export type ResultReason = 'completed' | 'forfeit' | 'disconnect';
export type QuestionKind = 'single' | 'multiple' | 'true_false';

export interface DuelQuestion {
  id: string;
  prompt: string;
  kind: QuestionKind;
  options: { id: string; text: string }[];
  correct_option_ids: string[];
}

/** Whether the chosen options are exactly the correct ones. */
export function isCorrect(question: DuelQuestion, optionIds: readonly string[]): boolean {
  const chosen = new Set(optionIds);
  return (
    chosen.size === question.correct_option_ids.length && question.correct_option_ids.every((id) => chosen.has(id))
  );
}

/** `100 + floor(50 * (round_ms - answer_ms) / round_ms)` for a right answer, else 0. */
export function points(correct: boolean, answerMs: number, roundMs: number): number {
  if (!correct) return 0;
  const ms = Math.min(Math.max(answerMs, 0), roundMs);
  return 100 + Math.floor((50 * (roundMs - ms)) / roundMs);
}

/** `answer_ms = received_at - starts_at` clamped to 0..round_ms. */
export function answerMs(receivedAt: number, startsAt: number, roundMs: number): number {
  return Math.min(Math.max(receivedAt - startsAt, 0), roundMs);
}

/** Whether an answer received at `receivedAt` counts for a round (starts_at <= t <= deadline_at + 250 ms). */
export function answerWindow(receivedAt: number, startsAt: number, deadlineAt: number): 'early' | 'open' | 'closed' {
  if (receivedAt < startsAt) return 'early';
  if (receivedAt > deadlineAt + ANSWER_GRACE_MS) return 'closed';
  return 'open';
}

export function winnerOf(scores: { challenger: number; opponent: number }): DuelRole | null {
  if (scores.challenger === scores.opponent) return null;
  return scores.challenger > scores.opponent ? 'challenger' : 'opponent';
}

export function resultFor(role: DuelRole, winner: DuelRole | null): 'win' | 'loss' | 'draw' {
  if (winner === null) return 'draw';
  return winner === role ? 'win' : 'loss';
}

/**
 * The XP a result earns, before the daily cap. A duel ended by forfeit or disconnection before its second round
 * started earns nothing (extensions-v3 6.3; the engagement ledger applies the same rule to `duel.finished`).
 */
export function xpFor(result: 'win' | 'loss' | 'draw', reason: ResultReason = 'completed', roundsStarted = 0): number {
  if (reason !== 'completed' && roundsStarted < 2) return 0;
  return DUEL_XP[result];
}
