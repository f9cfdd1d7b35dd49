import { bodyField, type RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/*
 * The limits of the sign-in and account-security operations. Values a real service would use: generous for
 * people, tight for scripts. Documented per operation in the OpenAPI description.
 */
const QUARTER_HOUR = 15 * 60;
const HOUR = 60 * 60;

export const OTP_REQUEST_IP: RateLimitPolicy = {
  name: 'auth.otp_request.ip',
  points: 20,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const OTP_REQUEST_EMAIL: RateLimitPolicy = {
  name: 'auth.otp_request.email',
  points: 5,
  durationSeconds: QUARTER_HOUR,
  key: bodyField('email', 'email address'),
};
export const OTP_VERIFY_IP: RateLimitPolicy = {
  name: 'auth.otp_verify.ip',
  points: 30,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const OTP_VERIFY_EMAIL: RateLimitPolicy = {
  name: 'auth.otp_verify.email',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: bodyField('email', 'email address'),
};
export const TWO_FACTOR_VERIFY_IP: RateLimitPolicy = {
  name: 'auth.two_factor_verify.ip',
  points: 20,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const REFRESH_IP: RateLimitPolicy = { name: 'auth.refresh.ip', points: 60, durationSeconds: 60, key: 'ip' };
export const STEP_UP_REQUEST_ACCOUNT: RateLimitPolicy = {
  name: 'auth.step_up_request.account',
  points: 5,
  durationSeconds: QUARTER_HOUR,
  key: 'account',
};
export const STEP_UP_VERIFY_ACCOUNT: RateLimitPolicy = {
  name: 'auth.step_up_verify.account',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: 'account',
};
export const EMAIL_CHANGE_ACCOUNT: RateLimitPolicy = {
  name: 'auth.email_change.account',
  points: 5,
  durationSeconds: HOUR,
  key: 'account',
};
export const EMAIL_CHANGE_IP: RateLimitPolicy = {
  name: 'auth.email_change.ip',
  points: 20,
  durationSeconds: HOUR,
  key: 'ip',
};
export const EMAIL_CHANGE_VERIFY_ACCOUNT: RateLimitPolicy = {
  name: 'auth.email_change_verify.account',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: 'account',
};
export const IMPERSONATE_ACCOUNT: RateLimitPolicy = {
  name: 'auth.impersonate.account',
  points: 10,
  durationSeconds: HOUR,
  key: 'account',
};

/** ASVS 2.2.1: at most 100 failed code attempts per account per hour, whatever the client address. */
export const FAILED_ATTEMPTS_ACCOUNT: RateLimitPolicy = {
  name: 'auth.failed_attempts.account',
  points: 100,
  durationSeconds: HOUR,
  key: 'account',
};
