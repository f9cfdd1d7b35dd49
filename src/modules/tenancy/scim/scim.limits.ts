import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/**
 * Extensions-v3 2.5: 1 200 requests per minute per SCIM token by default (`SCIM_TOKEN_PER_MINUTE`), counted by the
 * SCIM guard with the token's id as key.
 */
export function scimTokenBudget(points: number): RateLimitPolicy {
  return { name: 'scim.token', points, durationSeconds: 60, key: { describe: 'SCIM token', from: () => null } };
}
