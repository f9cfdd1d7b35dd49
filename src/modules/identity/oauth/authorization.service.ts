import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { browserSessionId, type Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { type User, UsersService } from '@/modules/identity/users';
import { matchesRegisteredRedirect, SCOPE } from './client-registration';
import type { AuthorizeDecisionDto } from './dto/oauth.dto';
import { OAuthError, singleParam } from './oauth-errors';
import { type AuthorizationRequestRow, OAuthRepository } from './oauth.repository';
import { AUTHORIZATION_REQUEST_TTL_SECONDS, CODE_TTL_SECONDS, OAuthServer } from './oauth-server';
import { consentPage, errorPage, type Page } from './pages';

export type AuthorizeReply = { kind: 'page'; page: Page } | { kind: 'redirect'; location: string };

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const page = (status: number, title: string, message: string): AuthorizeReply => ({
  kind: 'page',
  page: errorPage(status, title, message),
});

/**
 * The authorization endpoint and the consent decision (OAuth 2.1 authorization code with PKCE). Until the client
 * and its redirect URI are known to match a registration, errors are shown as a page and never redirected (an
 * open redirector otherwise); after that they go back to the client with `error`, `state` and `iss` (RFC 9207).
 */
@Injectable()
export class AuthorizationService {
  constructor(
    private readonly repo: OAuthRepository,
    private readonly server: OAuthServer,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
  ) {}

  /**
   * The authorization endpoint: `query` as parsed and `rawQuery` as received (the login redirect comes back to
   * exactly this URL), `session` the caller's browser session if any.
   */
  async authorize(
    query: Record<string, unknown>,
    rawQuery: string,
    session: Credential | null,
  ): Promise<AuthorizeReply> {
    let clientId: string | undefined;
    let redirectUri: string | undefined;
    try {
      clientId = singleParam(query, 'client_id');
      redirectUri = singleParam(query, 'redirect_uri');
    } catch {
      return page(400, 'Invalid request', 'client_id and redirect_uri must each appear once.');
    }
    if (!clientId) return page(400, 'Invalid request', 'The request names no client (client_id).');
    const client = await this.repo.findClient(clientId);
    if (!client) return page(400, 'Unknown application', 'This application is not registered here.');
    if (!redirectUri) return page(400, 'Invalid request', 'The request names no redirect_uri.');
    if (!matchesRegisteredRedirect(client.redirect_uris, redirectUri)) {
      return page(400, 'Invalid redirect', 'The redirect_uri is not one this application registered.');
    }

    // From here the redirect URI is trusted: errors go back to the client.
    let state: string | undefined;
    let params: { codeChallenge: string; scope: string; resource: string };
    try {
      state = singleParam(query, 'state');
      params = this.checkParameters(query);
    } catch (err) {
      if (err instanceof OAuthError) {
        return { kind: 'redirect', location: this.errorRedirect(redirectUri, err.error, err.description, state) };
      }
      throw err;
    }

    const credential = session;
    if (!credential?.sessionId) {
      return {
        kind: 'redirect',
        location: this.server.loginUrl(`${this.server.endpoint('authorize')}${rawQuery}`),
      };
    }
    const user = await this.users.getById(credential.userId);
    const refusal = this.refusal(credential, user);
    if (refusal) return refusal;

    const now = this.clock.now();
    const requestId = await this.repo.insertRequest({
      client_id: client.id,
      user_id: user.id,
      session_id: credential.sessionId,
      redirect_uri: redirectUri,
      state: state ?? null,
      code_challenge: params.codeChallenge,
      scope: params.scope,
      resource: params.resource,
      created_at: now,
      expires_at: new Date(now.getTime() + AUTHORIZATION_REQUEST_TTL_SECONDS * 1000),
    });
    const mine = await this.orgs.myOrganizations(user.id);
    return {
      kind: 'page',
      page: consentPage({
        clientName: client.client_name ?? 'An application',
        clientUri: client.client_uri,
        redirectUri,
        requestId,
        csrfToken: this.csrfToken(requestId, credential.sessionId),
        decisionUrl: this.server.endpoint('authorize/decision'),
        organizations: mine.organizations
          .filter((o) => o.organization.status === 'active')
          .map((o) => ({
            id: o.organization.id,
            name: o.organization.name,
            role: o.role,
            canWrite: o.role !== 'student',
          })),
      }),
    };
  }

  async decide(credential: Credential, dto: AuthorizeDecisionDto, ip: string | undefined): Promise<AuthorizeReply> {
    // Authorizations are given from a browser session, never while impersonating (the route's decorators).
    const sessionId = browserSessionId(credential);
    const user = await this.users.getById(credential.userId);
    const refusal = this.refusal(credential, user);
    if (refusal) return refusal;
    const request = await this.repo.findRequest(dto.request_id, user.id);
    // The form must come from the consent page shown to this very session (CSRF, RFC 9700 4.7).
    if (
      !request ||
      request.session_id !== sessionId ||
      !this.crypto.safeEqual(this.csrfToken(request.id, sessionId), dto.csrf_token)
    ) {
      return page(
        403,
        'Request refused',
        'This authorization form is not valid for your session. Start again from the application.',
      );
    }
    if (request.used_at || request.expires_at.getTime() <= this.clock.nowMs()) {
      return page(
        400,
        'Request expired',
        'This authorization request was already answered or has expired. Start again from the application.',
      );
    }
    const client = await this.repo.findClient(request.client_id);
    if (!client) return page(400, 'Unknown application', 'This application is no longer registered.');

    if (dto.decision === 'deny') {
      const consumed = await this.transactions.run((tx) =>
        this.repo.consumeRequest(request.id, user.id, this.clock.now(), tx),
      );
      if (!consumed)
        return page(400, 'Request expired', 'This authorization request was already answered or has expired.');
      return {
        kind: 'redirect',
        location: this.errorRedirect(
          request.redirect_uri,
          'access_denied',
          'The person denied the request.',
          request.state ?? undefined,
        ),
      };
    }

    // Approve: one of the person's (active) organizations, and write access only where their role allows it.
    const membership = dto.organization_id
      ? await this.orgs.membership(dto.organization_id.toLowerCase(), user.id)
      : null;
    if (!membership || (await this.orgs.isSuspended(membership.organizationId))) {
      return page(403, 'Request refused', 'Choose one of your organizations.');
    }
    const access = dto.access ?? 'read';
    if (access === 'write' && membership.role === 'student') {
      return page(403, 'Request refused', 'Learners can share read-only access only.');
    }
    const code = this.crypto.randomToken(32);
    const outcome = await this.transactions.run(async (tx) => {
      const now = this.clock.now();
      const consumed = await this.repo.consumeRequest(request.id, user.id, now, tx);
      if (!consumed) return null;
      // A new consent for the same application and organization replaces the previous one.
      for (const id of await this.repo.liveGrantIds(user.id, client.id, membership.organizationId, tx)) {
        await this.repo.revokeGrant(id, 'replaced', now, tx);
      }
      const grant = await this.repo.insertGrant(
        {
          user_id: user.id,
          client_id: client.id,
          organization_id: membership.organizationId,
          access,
          scope: consumed.scope,
          resource: consumed.resource,
          created_at: now,
        },
        tx,
      );
      await this.repo.insertCode(
        {
          code_hash: this.crypto.sha256(code),
          grant_id: grant.id,
          organization_id: grant.organization_id,
          client_id: client.id,
          redirect_uri: consumed.redirect_uri,
          code_challenge: consumed.code_challenge,
          scope: consumed.scope,
          resource: consumed.resource,
          created_at: now,
          expires_at: new Date(now.getTime() + CODE_TTL_SECONDS * 1000),
        },
        tx,
      );
      await this.audit.record(
        {
          action: 'oauth.grant_created',
          actorId: user.id,
          organizationId: membership.organizationId,
          targetType: 'oauth_grant',
          targetId: grant.id,
          ip,
          metadata: { client_id: client.id, access },
        },
        tx,
      );
      return consumed;
    });
    if (!outcome)
      return page(400, 'Request expired', 'This authorization request was already answered or has expired.');
    return { kind: 'redirect', location: this.codeRedirect(outcome, code) };
  }

  /** The rules of the request itself, after the client and redirect URI are trusted. */
  private checkParameters(query: unknown): { codeChallenge: string; scope: string; resource: string } {
    const responseType = singleParam(query, 'response_type');
    const challenge = singleParam(query, 'code_challenge');
    const method = singleParam(query, 'code_challenge_method');
    const scope = singleParam(query, 'scope');
    const resources = (query as Record<string, unknown>).resource;
    if (!responseType) throw new OAuthError('invalid_request', 'response_type is required.');
    if (responseType !== 'code')
      throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.');
    if (!challenge)
      throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
    if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256.');
    if (!CODE_CHALLENGE.test(challenge))
      throw new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters.');
    if (scope !== undefined && (scope === '' || scope.split(' ').some((s) => s !== SCOPE))) {
      throw new OAuthError('invalid_scope', `The only scope is "${SCOPE}".`);
    }
    // RFC 8707: one or more resource parameters, each of which must be this API.
    const list = resources === undefined ? [] : Array.isArray(resources) ? resources : [resources];
    if (list.some((r) => r !== this.server.resource)) {
      throw new OAuthError('invalid_target', `The only resource is ${this.server.resource}.`);
    }
    return { codeChallenge: challenge, scope: SCOPE, resource: this.server.resource };
  }

  /** Impersonation and learners who have not declared themselves adults cannot hand out tokens. */
  private refusal(credential: Credential, user: User): AuthorizeReply | null {
    if (credential.impersonatorId) {
      return page(403, 'Not while impersonating', 'Only the person themself can connect applications.');
    }
    if (user.ageBracket !== 'adult') {
      return page(
        403,
        'Not available',
        'Connecting applications needs an adult account: complete your onboarding first.',
      );
    }
    return null;
  }

  private csrfToken(requestId: string, sessionId: string): string {
    return this.crypto.keyedHash('oauth-consent-csrf', `${requestId}.${sessionId}`);
  }

  private codeRedirect(request: AuthorizationRequestRow, code: string): string {
    const url = new URL(request.redirect_uri);
    url.searchParams.set('code', code);
    if (request.state !== null) url.searchParams.set('state', request.state);
    url.searchParams.set('iss', this.server.issuer);
    return url.href;
  }

  private errorRedirect(redirectUri: string, error: string, description: string, state?: string): string {
    const url = new URL(redirectUri);
    url.searchParams.set('error', error);
    url.searchParams.set('error_description', description);
    if (state !== undefined) url.searchParams.set('state', state);
    url.searchParams.set('iss', this.server.issuer);
    return url.href;
  }
}
