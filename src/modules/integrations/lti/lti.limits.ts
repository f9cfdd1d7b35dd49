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

/**
 * AGS and NRPS calls of one tool, all its service tokens together (extensions-v3 4: service tokens by their own
 * limits): 6 000 a minute by default (`LTI_SERVICE_PER_MINUTE`), a grade passback of a large course at 100 a second.
 */
export function ltiServiceBudget(points: number): RateLimitPolicy {
  return { name: 'lti.service.tool', points, durationSeconds: 60, key: { describe: 'tool', from: () => null } };
}

/** Dynamic registrations: a tool registers once per attempt. */
export const LTI_REGISTER_IP: RateLimitPolicy = {
  name: 'lti.register.ip',
  points: 30,
  durationSeconds: 60,
  key: 'ip',
};

/** Deep-linking answers come back through the editor's browser. */
export const LTI_DEEP_LINK_IP: RateLimitPolicy = {
  name: 'lti.deep_link_return.ip',
  points: 60,
  durationSeconds: 60,
  key: 'ip',
};
