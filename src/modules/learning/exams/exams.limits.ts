import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 9.9: starting sessions, 10 per hour per account. */
export const START_ACCOUNT: RateLimitPolicy = {
  name: 'exams.start.account',
  points: 10,
  durationSeconds: 3600,
  key: 'account',
};

/** Autosave, 600 per minute per account (a save per question change, with room for retries). */
export const ANSWER_ACCOUNT: RateLimitPolicy = {
  name: 'exams.answer.account',
  points: 600,
  durationSeconds: 60,
  key: 'account',
};

/** Proctoring event batches, 60 per minute per account. */
export const EVENTS_ACCOUNT: RateLimitPolicy = {
  name: 'exams.events.account',
  points: 60,
  durationSeconds: 60,
  key: 'account',
};
