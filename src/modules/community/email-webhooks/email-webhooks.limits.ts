import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 22.2: the provider's deliveries, 600 per minute per client address. */
export const EMAIL_WEBHOOK_IP: RateLimitPolicy = {
  name: 'email_webhooks.receive.ip',
  points: 600,
  durationSeconds: 60,
  key: 'ip',
};
