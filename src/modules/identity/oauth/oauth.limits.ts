import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

export const REGISTER_IP: RateLimitPolicy = {
  name: 'oauth.register.ip',
  points: 20,
  durationSeconds: 60 * 60,
  key: 'ip',
};
export const AUTHORIZE_IP: RateLimitPolicy = { name: 'oauth.authorize.ip', points: 60, durationSeconds: 60, key: 'ip' };
export const DECISION_ACCOUNT: RateLimitPolicy = {
  name: 'oauth.decision.account',
  points: 30,
  durationSeconds: 60,
  key: 'account',
};
export const TOKEN_IP: RateLimitPolicy = { name: 'oauth.token.ip', points: 60, durationSeconds: 60, key: 'ip' };
export const REVOKE_IP: RateLimitPolicy = { name: 'oauth.revoke.ip', points: 60, durationSeconds: 60, key: 'ip' };
