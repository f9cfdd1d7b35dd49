import type { Request } from 'express';

export type CredentialKind = 'session' | 'personal_token' | 'oauth_token';
export type Access = 'read' | 'write';
export type PlatformRole = 'platform_admin' | 'editor';

/** Who is calling and with what: set on the request by the credential guard. */
export interface Credential {
  readonly kind: CredentialKind;
  readonly userId: string;
  /** The cookie session (for `session`), else null. */
  readonly sessionId: string | null;
  /** The personal or OAuth token's id, else null. */
  readonly tokenId: string | null;
  /** The one organization a bearer token acts in; null for a cookie session. */
  readonly organizationId: string | null;
  /** What the credential may do. A session is `write` unless the person is an underage learner. */
  readonly access: Access;
  /** A platform admin acting as this user, when the session is an impersonation. */
  readonly impersonatorId: string | null;
  /** Platform roles of the person (`platform_admin` includes `editor`). */
  readonly platformRoles: readonly PlatformRole[];
  /**
   * The person's age bracket is `under_18`. Their session is read-only except for operations marked
   * `@MinorAccess` (extensions-v2 2.5).
   */
  readonly minor: boolean;
}

export interface AuthenticatedRequest extends Request {
  credential?: Credential;
}

export function hasPlatformRole(credential: Credential, role: PlatformRole): boolean {
  return (
    credential.platformRoles.includes(role) ||
    (role === 'editor' && credential.platformRoles.includes('platform_admin'))
  );
}

/**
 * The session id of a credential the credential guard already required to be a browser session
 * (`@BrowserSessionOnly()`). A call from an operation without that mark is a programming error, not a refusal.
 */
export function browserSessionId(credential: Credential): string {
  if (credential.kind !== 'session' || !credential.sessionId) {
    throw new Error('A browser session was expected here: mark the operation @BrowserSessionOnly()');
  }
  return credential.sessionId;
}

/** The age bracket of an underage learner (users' `age_bracket`). */
export const MINOR_AGE_BRACKET = 'under_18';

/**
 * The credential of a valid bearer token (personal or OAuth). A minor's token is read-only whatever access it
 * was granted (only their browser session may use `@MinorAccess` operations); platform powers stay with the
 * person at the browser: a token acts in its one organization only.
 */
export function bearerCredential(
  kind: 'personal_token' | 'oauth_token',
  token: { readonly id: string; readonly userId: string; readonly organizationId: string; readonly access: Access },
  holder: { readonly ageBracket: string | null },
): Credential {
  const minor = holder.ageBracket === MINOR_AGE_BRACKET;
  return {
    kind,
    userId: token.userId,
    sessionId: null,
    tokenId: token.id,
    organizationId: token.organizationId,
    access: minor ? 'read' : token.access,
    minor,
    impersonatorId: null,
    platformRoles: [],
  };
}

/** The credential of a live browser session: `write`, except for a minor (read-only but for `@MinorAccess`). */
export function sessionCredential(
  session: { readonly id: string; readonly impersonatorId: string | null },
  person: { readonly id: string; readonly ageBracket: string | null; readonly platformRoles: readonly PlatformRole[] },
): Credential {
  const minor = person.ageBracket === MINOR_AGE_BRACKET;
  return {
    kind: 'session',
    userId: person.id,
    sessionId: session.id,
    tokenId: null,
    organizationId: null,
    access: minor ? 'read' : 'write',
    impersonatorId: session.impersonatorId,
    platformRoles: person.platformRoles,
    minor,
  };
}
