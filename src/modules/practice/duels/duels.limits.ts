import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 8.2: challenges, 30 per hour per account. */
export const CHALLENGE_ACCOUNT: RateLimitPolicy = {
  name: 'duels.challenge.account',
  points: 30,
  durationSeconds: 3600,
  key: 'account',
};

/**
 * extensions-v3 6.4: `queue:join`, 10 per minute per person (every socket and instance together), counted before
 * any other work; past it the socket gets the error event `rate_limited`.
 */
export const QUEUE_JOIN_ACCOUNT: RateLimitPolicy = {
  name: 'duels.queue_join.account',
  points: 10,
  durationSeconds: 60,
  key: 'account',
};
