import { isUuid } from '@/core/http/uuid';

/** What the service takes from a validated ID token. */
export interface ExternalIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly email: string;
  readonly emailVerified: boolean;
  /** Google Workspace domain of the account (absent for consumer accounts). */
  readonly hd: string | null;
  /** Microsoft Entra tenant of the account. */
  readonly tid: string | null;
  readonly locale: 'es' | 'en';
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/** The lower-case domain of an address, or null when it is not an address. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1) return null;
  return email
    .slice(at + 1)
    .trim()
    .toLowerCase();
}

export function isTenantId(value: string): boolean {
  // A Microsoft Entra tenant id is a GUID.
  return isUuid(value);
}

/**
 * The identity in already validated ID token claims (openid-client checked signature, iss, aud, exp, iat and
 * nonce), or null when it lacks a subject or a usable email address.
 */
export function identityFromClaims(claims: Record<string, unknown>): ExternalIdentity | null {
  const { iss, sub, email } = claims;
  if (typeof iss !== 'string' || typeof sub !== 'string' || sub.length === 0 || sub.length > 255) return null;
  if (typeof email !== 'string' || email.length > 320 || !EMAIL.test(email.trim())) return null;
  const locale = typeof claims.locale === 'string' && claims.locale.toLowerCase().startsWith('en') ? 'en' : 'es';
  return {
    issuer: iss,
    subject: sub,
    email: email.trim().toLowerCase(),
    // Only the JSON boolean true counts; "true" strings or absent claims do not.
    emailVerified: claims.email_verified === true,
    hd: typeof claims.hd === 'string' ? claims.hd.toLowerCase() : null,
    tid: typeof claims.tid === 'string' ? claims.tid.toLowerCase() : null,
    locale,
  };
}
