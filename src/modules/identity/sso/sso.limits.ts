import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

export const SSO_DISCOVER_IP: RateLimitPolicy = {
  name: 'auth.sso_discover.ip',
  points: 30,
  durationSeconds: 60,
  key: 'ip',
};

/** Domain verification makes DNS queries: a few per minute per administrator is plenty. */
export const SSO_VERIFY_ACCOUNT: RateLimitPolicy = {
  name: 'sso.domain_verify.account',
  points: 10,
  durationSeconds: 60,
  key: 'account',
};

/** A connection test reads the issuer's discovery document. */
export const SSO_TEST_ACCOUNT: RateLimitPolicy = {
  name: 'sso.connection_test.account',
  points: 10,
  durationSeconds: 60,
  key: 'account',
};
