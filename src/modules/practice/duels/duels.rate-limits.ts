import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 8.2: challenges, 30 per hour per account. */
export const CHALLENGE_ACCOUNT: RateLimitPolicy = {
  name: 'duels.challenge.account',
  points: 30,
  durationSeconds: 3600,
  key: 'account',
};
