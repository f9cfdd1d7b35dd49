import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** Starting a sign-in at an external provider or an institution's identity provider: an own per-IP quota. */
export const EXTERNAL_START_IP: RateLimitPolicy = {
  name: 'auth.external_start.ip',
  points: 20,
  durationSeconds: 60,
  key: 'ip',
};

/** Returning from the provider. */
export const EXTERNAL_CALLBACK_IP: RateLimitPolicy = {
  name: 'auth.external_callback.ip',
  points: 30,
  durationSeconds: 60,
  key: 'ip',
};
