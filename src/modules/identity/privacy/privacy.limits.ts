import { createHash } from 'node:crypto';
import type { RateLimitKey, RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** The body's `token`, counted by its SHA-256 (the token itself is never written to Redis). */
const TOKEN: RateLimitKey = {
  describe: 'token',
  from: (req) => {
    const value = (req.body as Record<string, unknown> | undefined)?.token;
    return typeof value === 'string' && value !== '' ? createHash('sha256').update(value).digest('base64url') : null;
  },
};

const DAY = 24 * 3600;
const QUARTER_HOUR = 15 * 60;

/** extensions-v2 17.7: exports, 3 per day per account. */
export const EXPORT_ACCOUNT: RateLimitPolicy = {
  name: 'privacy.export.account',
  points: 3,
  durationSeconds: DAY,
  key: 'account',
};

/** Guardian consent requests, 3 per day per account. */
export const GUARDIAN_REQUEST_ACCOUNT: RateLimitPolicy = {
  name: 'privacy.guardian_request.account',
  points: 3,
  durationSeconds: DAY,
  key: 'account',
};

/** The public guardian preview: 30 per 15 minutes per client address, 10 per 15 minutes per token. */
export const PREVIEW_IP: RateLimitPolicy = {
  name: 'privacy.guardian_preview.ip',
  points: 30,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const PREVIEW_TOKEN: RateLimitPolicy = {
  name: 'privacy.guardian_preview.token',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: TOKEN,
};

/** Decision and revocation: 10 per 15 minutes per client address, 5 per 15 minutes per token. */
export const DECISION_IP: RateLimitPolicy = {
  name: 'privacy.guardian_decision.ip',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const DECISION_TOKEN: RateLimitPolicy = {
  name: 'privacy.guardian_decision.token',
  points: 5,
  durationSeconds: QUARTER_HOUR,
  key: TOKEN,
};
export const REVOKE_IP: RateLimitPolicy = {
  name: 'privacy.guardian_revoke.ip',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const REVOKE_TOKEN: RateLimitPolicy = {
  name: 'privacy.guardian_revoke.token',
  points: 5,
  durationSeconds: QUARTER_HOUR,
  key: TOKEN,
};
