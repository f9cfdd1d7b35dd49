import { bodyField, type RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** 20: forms, 5 per hour per client address and 3 per day per email (contact and demo count together). */
export const FORM_IP: RateLimitPolicy = { name: 'public.form.ip', points: 5, durationSeconds: 3600, key: 'ip' };
export const FORM_EMAIL: RateLimitPolicy = {
  name: 'public.form.email',
  points: 3,
  durationSeconds: 86_400,
  key: bodyField('email', 'email address'),
};
/** 20: the public catalog, 120 per minute per client address. */
export const CATALOG_IP: RateLimitPolicy = { name: 'public.catalog.ip', points: 120, durationSeconds: 60, key: 'ip' };
