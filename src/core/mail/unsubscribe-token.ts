import type { CryptoService } from '@/core/crypto/crypto.service';

/**
 * The `type` of an unsubscribe link (interface-v1 section 6): one of the five email categories of the notification
 * preferences, or `all` (every notification email and the consent `product_updates_email`, 17.2). Announcement
 * emails use `all`.
 */
export const UNSUBSCRIBE_TYPES = [
  'course_complete',
  'badge_earned',
  'streak_reminder',
  'weekly_summary',
  'new_course',
  'all',
] as const;
export type UnsubscribeType = (typeof UNSUBSCRIBE_TYPES)[number];

/** 32 hex digits of the user id, then 32 hex digits of the MAC. */
export const UNSUBSCRIBE_TOKEN_PATTERN = /^[a-f0-9]{64}$/;

/** The path of the confirmation page and of the RFC 8058 one-click POST. */
export const UNSUBSCRIBE_PATH = '/api/v1/notifications/unsubscribe';

type Signer = Pick<CryptoService, 'keyedHash'>;
type Verifier = Pick<CryptoService, 'keyedHash' | 'safeEqual'>;

function mac(crypto: Signer, userId: string, type: UnsubscribeType): string {
  return crypto.keyedHash('unsubscribe', `${userId}:${type}`).slice(0, 32);
}

/**
 * The signed, stateless token of extensions-v2 13.6: the user id's 32 hex digits (the UUID without dashes) followed
 * by the first 32 hex digits of `keyedHash('unsubscribe', '<user_id>:<type>')` (HMAC-SHA256 under a key derived
 * from AUTH_SECRET; the user id in its canonical lower-case dashed form). Bound to the person and the type; nothing
 * is stored. The one place that builds it: notification emails, announcement emails and the unsubscribe page all
 * use these functions.
 */
export function unsubscribeToken(crypto: Signer, userId: string, type: UnsubscribeType): string {
  const id = userId.toLowerCase();
  return id.replace(/-/g, '') + mac(crypto, id, type);
}

/** The user id the token was signed for, when it verifies for this type (compared in constant time); else null. */
export function verifyUnsubscribeToken(crypto: Verifier, token: string, type: UnsubscribeType): string | null {
  if (!UNSUBSCRIBE_TOKEN_PATTERN.test(token)) return null;
  const hex = token.slice(0, 32);
  const userId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return crypto.safeEqual(token.slice(32), mac(crypto, userId, type)) ? userId : null;
}

/** `{base_url}/api/v1/notifications/unsubscribe?token=<t>&type=<type>`: the page, and the one-click target. */
export function unsubscribeUrl(baseUrl: string, token: string, type: UnsubscribeType): string {
  // Token and type are hex and snake_case: nothing to encode. The base keeps any path prefix it has.
  return `${baseUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}?token=${token}&type=${type}`;
}

/**
 * The RFC 8058 headers every notification and announcement email carries (extensions-v2 13.6). The sending
 * provider's DKIM signature must cover both.
 */
export function listUnsubscribeHeaders(
  crypto: Signer,
  baseUrl: string,
  userId: string,
  type: UnsubscribeType,
): { 'List-Unsubscribe': string; 'List-Unsubscribe-Post': string } {
  return {
    'List-Unsubscribe': `<${unsubscribeUrl(baseUrl, unsubscribeToken(crypto, userId, type), type)}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
}
