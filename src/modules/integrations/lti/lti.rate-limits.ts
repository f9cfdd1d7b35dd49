import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** The OIDC authentication request of a tool: a browser does one per launch. */
export const LTI_AUTHORIZE_IP: RateLimitPolicy = {
  name: 'lti.authorize.ip',
  points: 120,
  durationSeconds: 60,
  key: 'ip',
};

/** Service tokens: 60 per minute per tool (extensions-v3 1.5). */
export const LTI_TOKEN_TOOL: RateLimitPolicy = {
  name: 'lti.token.tool',
  points: 60,
  durationSeconds: 60,
  key: { describe: 'tool', from: () => null },
};
