import { type RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** 15.3: 20 per hour per organization. */
export const REQUEST_ORGANIZATION: RateLimitPolicy = {
  name: 'reports.request.organization',
  points: 20,
  durationSeconds: 3600,
  key: { describe: 'organization', from: (req) => (req.params as Record<string, string>).org_id ?? null },
};

/** 15.3: 5 per hour per account. */
export const REQUEST_ACCOUNT: RateLimitPolicy = {
  name: 'reports.request.account',
  points: 5,
  durationSeconds: 3600,
  key: 'account',
};
