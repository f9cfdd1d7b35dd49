import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 25.3: test deliveries, 10 per minute per account. */
export const TEST_ACCOUNT: RateLimitPolicy = {
  name: 'webhooks.test.account',
  points: 10,
  durationSeconds: 60,
  key: 'account',
};
