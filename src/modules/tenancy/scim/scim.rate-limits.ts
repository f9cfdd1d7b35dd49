import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** Extensions-v3 2.5: 1 200 requests per minute per SCIM token (a full sync of 10 000 users takes minutes). */
export const SCIM_TOKEN_BUDGET: RateLimitPolicy = {
  name: 'scim.token',
  points: 1200,
  durationSeconds: 60,
  key: { describe: 'SCIM token', from: () => null },
};
