import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import type { CallbackRequest } from '@/core/http/client-info';
import { clearCookie, COOKIE, setCookie } from '@/core/http/cookies';
import { isUuid } from '@/core/http/uuid';
import {
  type BrowserExit,
  BrowserFlowFailure,
  emailDomain,
  type ExternalIdentity,
  identityFromClaims,
  OidcFlowError,
  type OidcTarget,
  queryParam,
  SIGN_IN_STATE_TTL_SECONDS,
  ExternalSignInService,
} from '@/modules/identity/external-auth';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import type { SsoDiscoveryDto } from './dto/sso.dto';
import { type SsoConnectionRow, SsoConnectionsRepository } from './sso-connections.repository';
import { SsoDomainsRepository } from './sso-domains.repository';
import { SsoPolicyService } from './sso-policy.service';
import { isGoogleIssuer, issuerTenant } from './sso-rules';

/** interface-v1 section 8: the SSO callback's query limits. */
export const SSO_CALLBACK_LIMITS = { code: 4096, state: 512, error: 200 } as const;

const NO_SSO: SsoDiscoveryDto = { sso: false, connection_id: null, organization_name: null, enforced: false };

/**
 * Institutional sign-in: discovery by email domain, the start at the institution's identity provider and the
 * callback that follows the contract's "SSO callback steps" in order, ending always in a redirect.
 */
@Injectable()
export class SsoSignInService {
  private readonly logger = new Logger('SsoSignIn');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: SsoConnectionsRepository,
    private readonly domains: SsoDomainsRepository,
    private readonly policy: SsoPolicyService,
    private readonly external: ExternalSignInService,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly crypto: CryptoService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
  ) {}

  get redirectUri(): string {
    return `${this.config.baseUrl}/api/v1/auth/sso/callback`;
  }

  async discover(email: string): Promise<SsoDiscoveryDto> {
    if (!this.config.sso.enabled) return NO_SSO;
    const verified = await this.policy.verifiedDomainOf(email.toLowerCase());
    if (!verified) return NO_SSO;
    const org = await this.orgs.findById(verified.organizationId);
    if (!org || org.status !== 'active') return NO_SSO;
    const connection = await this.connections.firstEnabled(org.id);
    if (!connection) return NO_SSO;
    return { sso: true, connection_id: connection.id, organization_name: org.name, enforced: verified.enforced };
  }

  /** The identity provider's authorization URL for an enabled connection, with `svc_sso_state`. */
  async start(connectionId: string, loginHint: string | null | undefined): Promise<BrowserExit> {
    if (!this.config.sso.enabled) {
      throw new ApiError('feature_disabled', 'Single sign-on is not available on this deployment.');
    }
    const connection = isUuid(connectionId) ? await this.connections.findForSignIn(connectionId.toLowerCase()) : null;
    if (!connection || !connection.enabled || connection.organization_status !== 'active') throw ApiError.notFound();
    const started = await this.external.startState({ kind: 'sso', connectionId: connection.id });
    let url: URL;
    try {
      url = await this.external.authorizationUrl(this.target(connection), { ...started, loginHint });
    } catch (err) {
      this.logger.warn({ err, connection: connection.id }, 'SSO sign-in could not start');
      return { location: this.external.loginError('sso_provider_unavailable'), cookies: [] };
    }
    return { location: url.href, cookies: [setCookie(COOKIE.ssoState, started.state, SIGN_IN_STATE_TTL_SECONDS)] };
  }

  /**
   * A connection test started by an administrator: the same start (the state cookie goes to the administrator's
   * browser with this response), but the callback validates and stops at `{web_url}/org/sso?test=ok`, opening no
   * session. Works for disabled connections, so a connection can be tried before it is switched on.
   */
  async startTest(connection: SsoConnectionRow, userId: string): Promise<BrowserExit> {
    if (!this.config.sso.enabled) {
      throw new ApiError('feature_disabled', 'Single sign-on is not available on this deployment.');
    }
    const started = await this.external.startState({
      kind: 'sso',
      connectionId: connection.id,
      test: true,
      createdBy: userId,
    });
    let url: URL;
    try {
      url = await this.external.authorizationUrl(this.target(connection), started);
    } catch (err) {
      this.logger.warn({ err, connection: connection.id }, 'SSO connection test could not start');
      throw ApiError.conflict(
        'sso_discovery_failed',
        "The issuer's OpenID configuration could not be read (`{issuer}/.well-known/openid-configuration`).",
      );
    }
    return { location: url.href, cookies: [setCookie(COOKIE.ssoState, started.state, SIGN_IN_STATE_TTL_SECONDS)] };
  }

  /** Always a redirect: the dashboard, the two-factor step, a test result, or the login page with an error. */
  async callback(request: CallbackRequest): Promise<BrowserExit> {
    const cleared = clearCookie(COOKIE.ssoState);
    const cookie = request.stateCookie;
    let test = false;
    try {
      if (!this.config.sso.enabled) throw new BrowserFlowFailure('feature_disabled');
      const state = queryParam(request.query, 'state', SSO_CALLBACK_LIMITS.state, 'sso_invalid_request');
      const code = queryParam(request.query, 'code', SSO_CALLBACK_LIMITS.code, 'sso_invalid_request');
      const error = queryParam(request.query, 'error', SSO_CALLBACK_LIMITS.error, 'sso_invalid_request');

      // 1. The state is single use and bound to this browser.
      if (!state || !cookie || !this.crypto.safeEqual(cookie, state)) throw new BrowserFlowFailure('sso_invalid_state');
      const started = await this.external.consumeState(state, 'sso');
      if (!started?.connectionId) throw new BrowserFlowFailure('sso_invalid_state');
      test = started.test;
      if (error !== undefined) throw new BrowserFlowFailure('sso_provider_error');
      if (!code) throw new BrowserFlowFailure('sso_exchange_failed');
      const connection = await this.connections.findForSignIn(started.connectionId);
      if (!connection || connection.organization_status !== 'active' || (!connection.enabled && !test)) {
        throw new BrowserFlowFailure('sso_connection_unavailable');
      }

      // 2. The code is exchanged with PKCE; 3. the ID token is validated.
      const identity = await this.exchange(connection, state, started, request.rawQuery);
      await this.checkInstitutionClaims(connection, identity);
      if (test) return { location: this.external.web('/org/sso?test=ok'), cookies: [cleared] };

      // 4. The email's domain must be verified by the connection's organization.
      const domain = emailDomain(identity.email);
      const verified = domain ? await this.domains.findVerified(domain) : null;
      if (!verified || verified.organization_id !== connection.organization_id) {
        throw new BrowserFlowFailure('sso_domain_not_verified');
      }

      // 5. The account (linked identity, email, or new); 6. membership just in time; 7. the session.
      const { user } = await this.external.resolveAccount(identity, 'sso', connection.id);
      await this.transactions.run(async (tx) => {
        if (!(await this.orgs.addMember(connection.organization_id, user.id, 'student', user.id, tx))) return;
        await this.audit.record(
          {
            action: 'member.joined_via_sso',
            actorId: user.id,
            organizationId: connection.organization_id,
            targetType: 'user',
            targetId: user.id,
            ip: request.client.ip,
            metadata: { role: 'student', connection_id: connection.id },
          },
          tx,
        );
      });
      await this.users.setLastOrganization(user.id, connection.organization_id);
      const fresh = await this.users.getById(user.id);
      const exit = await this.external.enter(fresh, request.client, { organizationId: connection.organization_id });
      return { location: exit.location, cookies: [cleared, ...exit.cookies] };
    } catch (err) {
      const code = err instanceof BrowserFlowFailure ? err.code : 'sso_failed';
      if (!(err instanceof BrowserFlowFailure)) this.logger.error({ err }, 'SSO sign-in failed unexpectedly');
      const location = test
        ? this.external.web(`/org/sso?test=failed&error=${encodeURIComponent(code)}`)
        : this.external.loginError(code);
      return { location, cookies: [cleared] };
    }
  }

  private async exchange(
    connection: SsoConnectionRow,
    state: string,
    started: { nonce: string; codeVerifier: string },
    rawQuery: string,
  ): Promise<ExternalIdentity> {
    let claims: Record<string, unknown>;
    try {
      claims = await this.external.exchange(this.target(connection), new URL(`${this.redirectUri}${rawQuery}`), {
        state,
        nonce: started.nonce,
        codeVerifier: started.codeVerifier,
      });
    } catch (err) {
      if (err instanceof OidcFlowError) {
        this.logger.warn({ err: err.cause ?? err, connection: connection.id }, 'SSO code exchange refused');
        throw new BrowserFlowFailure(err.failure === 'invalid_token' ? 'sso_invalid_token' : 'sso_exchange_failed');
      }
      throw err;
    }
    const identity = identityFromClaims(claims);
    if (!identity) throw new BrowserFlowFailure('sso_invalid_token');
    // The institution's provider is authoritative for its domain; an explicit "not verified" still refuses.
    if (claims.email_verified === false) throw new BrowserFlowFailure('sso_email_unverified');
    return identity;
  }

  /**
   * `hd` and `tid` where applicable: a Google issuer (or any token carrying `hd`) must name a Workspace domain this
   * organization verified; an issuer that names a Microsoft tenant must see that tenant in `tid`.
   */
  private async checkInstitutionClaims(connection: SsoConnectionRow, identity: ExternalIdentity): Promise<void> {
    if (isGoogleIssuer(connection.issuer) || identity.hd !== null) {
      const hd = identity.hd ? await this.domains.findVerified(identity.hd) : null;
      if (!hd || hd.organization_id !== connection.organization_id) throw new BrowserFlowFailure('sso_invalid_token');
    }
    const tenant = issuerTenant(connection.issuer);
    if (tenant && identity.tid !== tenant) throw new BrowserFlowFailure('sso_invalid_token');
  }

  private target(connection: SsoConnectionRow): OidcTarget {
    return {
      issuer: connection.issuer,
      clientId: connection.client_id,
      clientSecret: this.crypto.decrypt(connection.client_secret_encrypted),
      redirectUri: this.redirectUri,
    };
  }
}
