import { Inject, Injectable, Optional } from '@nestjs/common';
import cookieParser from 'cookie-parser';
import type { Request, Response } from 'express';
import jwt from 'jsonwebtoken';
import type { Credential } from '@/core/auth/credential';
import type { MinorAccessLevel } from '@/core/auth/access.decorators';
import {
  authenticateWith,
  BEARER_PREFIXES,
  STRATEGY,
  type StrategyName,
  strategyRegistered,
} from '@/core/auth/strategies';
import { GuardianConsentResolver, type Membership, TenancyResolver } from '@/core/auth/tenancy';
import { COOKIE } from '@/core/http/cookies';
import { isUuid } from '@/core/http/uuid';
import { REALTIME_PATH } from './realtime.constants';
import { RealtimeError } from './realtime-errors';

/** What a namespace asks of the handshake. */
export interface HandshakeRules {
  /**
   * `required`: `auth.organization_id` must name an organization the person belongs to (duels). `optional`: it may
   * be left out; a bearer token is then limited to its own organization (notifications, 13.4).
   */
  readonly organization: 'required' | 'optional';
  /** The namespace takes client events that change state: read-only credentials are refused (`credential_read_only`). */
  readonly writes: boolean;
  /** What a minor's read-only session may do here when `writes` (as `@MinorAccess` on HTTP). */
  readonly minorAccess?: MinorAccessLevel;
}

/** Who is on a socket, decided at the handshake by the same strategies and organization rules as HTTP. */
export interface SocketIdentity {
  readonly credential: Credential;
  /** The organization of `auth.organization_id` (or of the token), with the person's role there; null without one. */
  readonly membership: Membership | null;
  /** When the credential stops being valid by itself (the access token's `exp`), epoch ms; null: checked by sweeps. */
  readonly expiresAt: number | null;
  /** How to check the same credential again later (revocation): the strategy and the request it read. */
  readonly recheck: { readonly strategy: StrategyName; readonly req: Request };
}

/** The parts of a Socket.IO handshake that carry credentials. */
export interface HandshakeInput {
  readonly auth: Record<string, unknown>;
  readonly headers: Record<string, string | string[] | undefined>;
}

const noopResponse = {} as Response;

/**
 * The Socket.IO handshake (extensions-v2 8.3): the credential is `auth.token`, else an `Authorization: Bearer`
 * header, else the `access_token` cookie, checked by the very passport strategies of HTTP; then
 * `auth.organization_id` by the org-scope rules of HTTP (not a member, or a token of another organization:
 * `not_found`; `organization_suspended`), then read-only credentials and minors.
 */
@Injectable()
export class HandshakeAuthenticator {
  constructor(
    @Optional() @Inject(TenancyResolver) private readonly tenancy: TenancyResolver | null,
    @Optional() @Inject(GuardianConsentResolver) private readonly consent: GuardianConsentResolver | null,
  ) {}

  async authenticate(input: HandshakeInput, rules: HandshakeRules): Promise<SocketIdentity> {
    const source = this.credentialSource(input);
    if (!source || !strategyRegistered(source.strategy)) throw unauthorized();
    const credential = await authenticateWith(source.strategy, source.req, noopResponse).catch(() => null);
    if (!credential) throw unauthorized();

    const membership = await this.organization(input.auth.organization_id, credential, rules);
    if (credential.access === 'read' && rules.writes) {
      if (!credential.minor || credential.kind !== 'session' || !rules.minorAccess) {
        throw new RealtimeError('credential_read_only', 'This credential is read-only.');
      }
      if (
        rules.minorAccess === 'with_consent' &&
        !(this.consent && (await this.consent.hasConsent(credential.userId, membership?.organizationId ?? null)))
      ) {
        throw new RealtimeError('guardian_consent_required', 'This needs your guardian’s consent first.');
      }
    }
    return { credential, membership, expiresAt: source.expiresAt, recheck: source };
  }

  /** The same credential checked again (a revoked session or token, a removed member): false when it no longer holds. */
  async stillValid(identity: SocketIdentity): Promise<boolean> {
    const again = await authenticateWith(identity.recheck.strategy, identity.recheck.req, noopResponse).catch(
      () => null,
    );
    if (!again || again.userId !== identity.credential.userId) return false;
    if (!identity.membership || !this.tenancy) return true;
    const membership = await this.tenancy.membership(identity.membership.organizationId, again.userId);
    return membership !== null;
  }

  private credentialSource(
    input: HandshakeInput,
  ): { strategy: StrategyName; req: Request; expiresAt: number | null } | null {
    const token = input.auth.token;
    let bearer: string | null = null;
    if (token !== undefined && token !== null) {
      if (typeof token !== 'string' || !/^[A-Za-z0-9._~+/=-]+$/.test(token)) return null;
      bearer = token;
    } else {
      const header = input.headers.authorization;
      if (header !== undefined) {
        const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header) : null;
        if (!match) return null;
        bearer = match[1];
      }
    }
    if (bearer !== null) {
      const strategy = BEARER_PREFIXES.find(([prefix]) => bearer.startsWith(prefix))?.[1];
      if (!strategy) return null;
      return { strategy, req: fakeRequest({ authorization: `Bearer ${bearer}` }, {}), expiresAt: null };
    }
    const cookieHeader = input.headers.cookie;
    if (typeof cookieHeader !== 'string') return null;
    const parsed = fakeRequest({ cookie: cookieHeader }, undefined);
    cookieParser()(parsed, noopResponse, () => undefined);
    const access = (parsed.cookies as Record<string, string> | undefined)?.[COOKIE.access];
    if (!access) return null;
    // Only the access cookie travels on: the strategy reads nothing else.
    const req = fakeRequest({}, { [COOKIE.access]: access });
    const decoded = jwt.decode(access);
    const exp = decoded && typeof decoded === 'object' && typeof decoded.exp === 'number' ? decoded.exp * 1000 : null;
    return { strategy: STRATEGY.cookieSession, req, expiresAt: exp };
  }

  private async organization(raw: unknown, credential: Credential, rules: HandshakeRules): Promise<Membership | null> {
    let organizationId: string | null;
    if (raw === undefined || raw === null) {
      if (rules.organization === 'required') throw notFound();
      // A bearer token is limited to its organization; a browser session without one has none.
      organizationId = credential.organizationId;
    } else {
      if (typeof raw !== 'string' || !isUuid(raw)) throw notFound();
      organizationId = raw.toLowerCase();
    }
    if (organizationId === null) return null;
    // A bearer token acts in exactly one organization; anywhere else it finds nothing.
    if (credential.organizationId !== null && credential.organizationId !== organizationId) throw notFound();
    if (!this.tenancy) throw new Error('A realtime namespace scoped by organization needs a TenancyResolver');
    const membership = await this.tenancy.membership(organizationId, credential.userId);
    if (!membership) throw notFound();
    if (await this.tenancy.isSuspended(membership.organizationId)) {
      throw new RealtimeError('organization_suspended', 'This organization is suspended.');
    }
    return membership;
  }
}

function fakeRequest(headers: Record<string, string>, cookies: Record<string, string> | undefined): Request {
  return { headers, cookies, query: {}, body: {}, method: 'GET', url: REALTIME_PATH } as unknown as Request;
}

function unauthorized(): RealtimeError {
  return new RealtimeError('unauthorized', 'Authentication required.');
}

function notFound(): RealtimeError {
  return new RealtimeError('not_found', 'Not found.');
}
