import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 7.2: answers, 120 per minute per account. */
export const ANSWER_ACCOUNT: RateLimitPolicy = {
  name: 'games.answer.account',
  points: 120,
  durationSeconds: 60,
  key: 'account',
};

/** extensions-v3 6.6: starting a game, 30 per hour per person. */
export const START_ACCOUNT: RateLimitPolicy = {
  name: 'games.start.account',
  points: 30,
  durationSeconds: 3600,
  key: 'account',
};
