import { bodyField, type RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/*
 * The limits of the invitation operations, documented per operation in the OpenAPI description. A person
 * opening an invitation link needs a handful of calls; an invitation token is 256 bits, so the per-token
 * limits only stop a script hammering one link (and the mailbox behind it), the per-address ones a script
 * trying many. Bulk invitations go through the CSV import, so the per-account invite limit can stay human.
 */
const QUARTER_HOUR = 15 * 60;
const HOUR = 60 * 60;

const TOKEN = bodyField('token', 'invitation token');

export const PREVIEW_IP: RateLimitPolicy = {
  name: 'invitations.preview.ip',
  points: 60,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const PREVIEW_TOKEN: RateLimitPolicy = {
  name: 'invitations.preview.token',
  points: 30,
  durationSeconds: QUARTER_HOUR,
  key: TOKEN,
};

/** Each request emails a code: as tight as the sign-in code request. */
export const CODE_REQUEST_IP: RateLimitPolicy = {
  name: 'invitations.code_request.ip',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const CODE_REQUEST_TOKEN: RateLimitPolicy = {
  name: 'invitations.code_request.token',
  points: 5,
  durationSeconds: QUARTER_HOUR,
  key: TOKEN,
};

export const CODE_VERIFY_IP: RateLimitPolicy = {
  name: 'invitations.code_verify.ip',
  points: 30,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const CODE_VERIFY_TOKEN: RateLimitPolicy = {
  name: 'invitations.code_verify.token',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: TOKEN,
};

export const ACCEPT_IP: RateLimitPolicy = {
  name: 'invitations.accept.ip',
  points: 30,
  durationSeconds: QUARTER_HOUR,
  key: 'ip',
};
export const ACCEPT_ACCOUNT: RateLimitPolicy = {
  name: 'invitations.accept.account',
  points: 20,
  durationSeconds: QUARTER_HOUR,
  key: 'account',
};
export const ACCEPT_TOKEN: RateLimitPolicy = {
  name: 'invitations.accept.token',
  points: 10,
  durationSeconds: QUARTER_HOUR,
  key: TOKEN,
};

/** The organization in the path (set by the router before the guards run). */
const ORGANIZATION: RateLimitPolicy['key'] = {
  describe: 'organization',
  from: (req) => {
    const id = (req.params as Record<string, string | undefined>).org_id;
    return id ? id.toLowerCase() : null;
  },
};

export const INVITE_ACCOUNT: RateLimitPolicy = {
  name: 'invitations.invite.account',
  points: 50,
  durationSeconds: HOUR,
  key: 'account',
};
export const INVITE_ORGANIZATION: RateLimitPolicy = {
  name: 'invitations.invite.organization',
  points: 200,
  durationSeconds: HOUR,
  key: ORGANIZATION,
};

export const REVOKE_ACCOUNT: RateLimitPolicy = {
  name: 'invitations.revoke.account',
  points: 100,
  durationSeconds: HOUR,
  key: 'account',
};
