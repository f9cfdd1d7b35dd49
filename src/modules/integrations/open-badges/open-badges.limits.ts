import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 25.5: credential status, 30 per minute per client address (as certificate verification). */
export const STATUS_IP: RateLimitPolicy = {
  name: 'open_badges.status.ip',
  points: 30,
  durationSeconds: 60,
  key: 'ip',
};
