import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { ApiError } from '@/core/http/api-error';
import type { AuthenticatedRequest, Credential, PlatformRole } from './credential';

export const IS_PUBLIC = Symbol('IS_PUBLIC');
export const STEP_UP = Symbol('STEP_UP');
export const READ_OPERATION = Symbol('READ_OPERATION');
export const PLATFORM_ROLES = Symbol('PLATFORM_ROLES');
export const MINOR_ACCESS = Symbol('MINOR_ACCESS');
export const SESSION_ONLY = Symbol('SESSION_ONLY');
export const NOT_WHILE_IMPERSONATING = Symbol('NOT_WHILE_IMPERSONATING');

/** What a minor's read-only session may still write (extensions-v2 2.5 and 17.6). */
export type MinorAccessLevel = 'always' | 'with_consent';

/**
 * Declares access metadata for the guards (read through Reflector on handler and class) and mirrors it as an
 * OpenAPI `x-` extension on every operation it covers, so the description and the access table are generated
 * from the same declaration the guards enforce.
 */
export function accessDecorator(key: symbol, value: unknown, extension: `x-${string}`, extensionValue: unknown) {
  return (target: object, propertyKey?: string | symbol, descriptor?: PropertyDescriptor): void => {
    const extend = ApiExtension(extension, extensionValue);
    if (descriptor && propertyKey !== undefined) {
      SetMetadata(key, value)(target, propertyKey, descriptor);
      extend(target, propertyKey, descriptor);
      return;
    }
    // On a class: metadata on the class for the guards, the extension on each of its operations for the docs.
    SetMetadata(key, value)(target as () => unknown);
    const proto = (target as { prototype: Record<string, unknown> }).prototype;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (d && typeof d.value === 'function') extend(proto, name, d);
    }
  };
}

/** The operation needs no credential. Everything else is denied without one. */
export const Public = (): MethodDecorator & ClassDecorator => accessDecorator(IS_PUBLIC, true, 'x-public', true);

/** A sensitive operation: needs a cookie session with a step-up confirmed in the last 10 minutes. */
export const StepUp = (): MethodDecorator & ClassDecorator => accessDecorator(STEP_UP, true, 'x-step-up', true);

/** A POST/PUT/PATCH/DELETE that changes nothing the credential owns, so read-only credentials may call it. */
export const ReadOperation = (): MethodDecorator & ClassDecorator =>
  accessDecorator(READ_OPERATION, true, 'x-read-operation', true);

/** Needs one of these platform roles (`platform_admin` includes `editor`). */
export const PlatformRoles = (...roles: PlatformRole[]): MethodDecorator & ClassDecorator =>
  accessDecorator(PLATFORM_ROLES, roles, 'x-platform-roles', roles);

/**
 * A write a minor's session may call: `always`, or `with_consent` (their guardian consented, by email anywhere or by
 * the organization's attestation on its own paths and personal routes; otherwise 403 `guardian_consent_required`).
 * Unmarked writes keep answering 403 `credential_read_only` to minors. Shown in the access table's Minors column.
 */
export const MinorAccess = (level: MinorAccessLevel): MethodDecorator & ClassDecorator =>
  accessDecorator(MINOR_ACCESS, level, 'x-minor-access', level);

/**
 * How an operation that only a person at the browser may call refuses other credentials: `forbidden` (403, a
 * bearer token is a credential but not this kind) or `unauthorized` (401, only the `access_token` cookie
 * authenticates the operation at all).
 */
export type SessionOnlyRule = 'forbidden' | 'unauthorized';

/**
 * Only a browser (cookie) session may call this: bearer tokens answer 403 `forbidden` (extensions-v2 2.4 "session"
 * rows). Shown in the access table's Session column and in the OpenAPI "Access" line.
 */
export const BrowserSessionOnly = (): MethodDecorator & ClassDecorator =>
  accessDecorator(SESSION_ONLY, 'forbidden' satisfies SessionOnlyRule, 'x-session-only', 'forbidden');

/**
 * A cookie operation (interface-v1 4.2 "cookie access_token"): only the `access_token` cookie authenticates it, so a
 * bearer token answers 401 `unauthorized` as if absent (integrations use `GET /auth/credential`).
 */
export const CookieSessionOnly = (): MethodDecorator & ClassDecorator =>
  accessDecorator(SESSION_ONLY, 'unauthorized' satisfies SessionOnlyRule, 'x-session-only', 'unauthorized');

/**
 * Refused to an impersonation session with 403 `impersonation_restricted`: what only the person may do themselves
 * (sign-in factors, address, tokens, connecting applications, starting another impersonation).
 */
export const NotWhileImpersonating = (): MethodDecorator & ClassDecorator =>
  accessDecorator(NOT_WHILE_IMPERSONATING, true, 'x-not-while-impersonating', true);

/** The credential of the request (guaranteed on non-public operations). */
export const CurrentCredential = createParamDecorator((_data: unknown, ctx: ExecutionContext): Credential => {
  const credential = ctx.switchToHttp().getRequest<AuthenticatedRequest>().credential;
  if (!credential) throw ApiError.unauthorized();
  return credential;
});
