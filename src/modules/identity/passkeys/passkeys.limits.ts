import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** The limits of the passkey operations (extensions-v3 3: 30 options and 10 verifications per 15 minutes). */
const QUARTER_HOUR = 15 * 60;
const HOUR = 60 * 60;

export const PASSKEY_OPTIONS_IP: RateLimitPolicy = {
  name: 'passkeys.options.ip',
  points: 30,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const PASSKEY_VERIFY_IP: RateLimitPolicy = {
  name: 'passkeys.verify.ip',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
/** Registration and the session's step-up: generous for a person, tight for a script. */
export const PASSKEY_REGISTER_ACCOUNT: RateLimitPolicy = {
  name: 'passkeys.register.account',
  points: 30,
  durationSeconds: HOUR,
  key: 'account',
};
export const PASSKEY_STEP_UP_ACCOUNT: RateLimitPolicy = {
  name: 'passkeys.step_up.account',
  points: 30,
  durationSeconds: QUARTER_HOUR,
  key: 'account',
};
export const PASSKEY_REGISTRATION_OPTIONS_ACCOUNT: RateLimitPolicy = {
  name: 'passkeys.registration_options.account',
  points: 60,
  durationSeconds: HOUR,
  key: 'account',
};
/** The second factor of an email-code sign-in: as `POST /auth/two-factor/verify`. */
export const PASSKEY_TWO_FACTOR_VERIFY_IP: RateLimitPolicy = {
  name: 'passkeys.two_factor_verify.ip',
  points: 20,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
