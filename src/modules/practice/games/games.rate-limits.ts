import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 7.2: answers, 120 per minute per account. */
export const ANSWER_ACCOUNT: RateLimitPolicy = {
  name: 'games.answer.account',
  points: 120,
  durationSeconds: 60,
  key: 'account',
};
