import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 11.2: posts, 10 per hour per account. */
export const POST_ACCOUNT: RateLimitPolicy = {
  name: 'social.post.account',
  points: 10,
  durationSeconds: 3600,
  key: 'account',
};

/** Comments, 30 per hour per account. */
export const COMMENT_ACCOUNT: RateLimitPolicy = {
  name: 'social.comment.account',
  points: 30,
  durationSeconds: 3600,
  key: 'account',
};

/** Reports, 20 per hour per account. */
export const REPORT_ACCOUNT: RateLimitPolicy = {
  name: 'social.report.account',
  points: 20,
  durationSeconds: 3600,
  key: 'account',
};
