import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { CryptoService } from '@/core/crypto/crypto.service';
import { ApiError } from '@/core/http/api-error';
import type { CallbackRequest } from '@/core/http/client-info';
import { clearCookie, COOKIE, setCookie } from '@/core/http/cookies';
import { type SignInProviders, SsoPolicy } from '@/modules/identity/auth';
import { AccountLinker } from './account-linker';
import { type BrowserExit, BrowserFlowFailure, BrowserSignIn, queryParam } from './browser-sign-in';
import { emailDomain, type ExternalIdentity, identityFromClaims, isTenantId } from './claims';
import { OidcClients, OidcFlowError, type OidcTarget } from './oidc-clients';
import { SIGN_IN_STATE_TTL_SECONDS, SignInStates } from './sign-in-states';

export const PROVIDERS = ['google', 'microsoft'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Limits of the callback's query (interface-v1 section 8 gives them for SSO; the providers follow the same). */
export const CALLBACK_LIMITS = { code: 4096, state: 512, error: 200 } as const;

function isProvider(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

/**
 * Sign-in with Google or Microsoft as an OpenID Connect relying party. The start binds a single-use state to
 * the browser (`svc_oauth_state`); the callback always answers with a redirect to the web app.
 */
@Injectable()
export class ProviderSignInService implements OnModuleInit, SignInProviders {
  private readonly logger = new Logger('ProviderSignIn');
  private readonly offered: ProviderName[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly oidc: OidcClients,
    private readonly states: SignInStates,
    private readonly accounts: AccountLinker,
    private readonly browser: BrowserSignIn,
    private readonly policy: SsoPolicy,
    private readonly crypto: CryptoService,
  ) {}

  /** Offers each configured provider; a configured issuer that breaks the https rule stops the start. */
  onModuleInit(): void {
    for (const name of PROVIDERS) {
      const provider = this.config.providers[name];
      if (!provider) continue;
      const problem = this.oidc.issuerProblem(provider.issuer);
      if (problem) throw new Error(`Configuration error: ${name.toUpperCase()}_ISSUER ${problem}`);
      this.offered.push(name);
    }
  }

  /** The providers configured (and valid) on this deployment, in a fixed order. */
  configured(): readonly string[] {
    return this.offered;
  }

  /** The provider's authorization URL, with the state cookie. */
  async start(name: string): Promise<BrowserExit> {
    const target = this.target(name);
    const started = await this.states.start({ kind: 'provider', provider: name as ProviderName });
    let url: URL;
    try {
      url = await this.oidc.authorizationUrl(target, started);
    } catch (err) {
      this.logger.warn({ err, provider: name }, 'Provider sign-in could not start');
      return { location: this.browser.loginError('oauth_provider_unavailable'), cookies: [] };
    }
    return { location: url.href, cookies: [setCookie(COOKIE.oauthState, started.state, SIGN_IN_STATE_TTL_SECONDS)] };
  }

  /** Where the browser goes after the provider sent it back: always a redirect, never a body. */
  async callback(name: string, request: CallbackRequest): Promise<BrowserExit> {
    const cleared = clearCookie(COOKIE.oauthState);
    try {
      const exit = await this.finish(name, request);
      return { location: exit.location, cookies: [cleared, ...exit.cookies] };
    } catch (err) {
      if (err instanceof BrowserFlowFailure) return { location: this.browser.loginError(err.code), cookies: [cleared] };
      this.logger.error({ err, provider: name }, 'Provider sign-in failed unexpectedly');
      return { location: this.browser.loginError('oauth_failed'), cookies: [cleared] };
    }
  }

  private async finish(name: string, request: CallbackRequest): Promise<BrowserExit> {
    if (!isProvider(name)) throw new BrowserFlowFailure('unknown_provider');
    const provider = this.config.providers[name];
    if (!provider) throw new BrowserFlowFailure('oauth_not_configured');
    const state = queryParam(request.query, 'state', CALLBACK_LIMITS.state, 'oauth_invalid_state');
    const code = queryParam(request.query, 'code', CALLBACK_LIMITS.code, 'oauth_invalid_request');
    const error = queryParam(request.query, 'error', CALLBACK_LIMITS.error, 'oauth_invalid_request');

    // The state must be the one this browser started with, and unused.
    const cookie = request.stateCookie;
    if (!state || !cookie || !this.crypto.safeEqual(cookie, state)) throw new BrowserFlowFailure('oauth_invalid_state');
    const started = await this.states.consume(state, 'provider');
    if (!started || started.provider !== name) throw new BrowserFlowFailure('oauth_invalid_state');
    if (error !== undefined) throw new BrowserFlowFailure('oauth_provider_error');
    if (!code) throw new BrowserFlowFailure('oauth_exchange_failed');

    const target = this.target(name);
    let claims: Record<string, unknown>;
    try {
      claims = await this.oidc.exchange(target, new URL(`${target.redirectUri}${request.rawQuery}`), {
        state,
        nonce: started.nonce,
        codeVerifier: started.codeVerifier,
      });
    } catch (err) {
      if (err instanceof OidcFlowError) {
        this.logger.warn({ err: err.cause ?? err, provider: name }, 'Provider code exchange refused');
        throw new BrowserFlowFailure(err.failure === 'invalid_token' ? 'oauth_invalid_token' : 'oauth_exchange_failed');
      }
      throw err;
    }
    const identity = identityFromClaims(claims);
    if (!identity) throw new BrowserFlowFailure('oauth_invalid_token');
    await this.checkProviderRules(name, identity, claims);

    const existing = await this.accounts.existing(identity);
    if (await this.policy.ssoRequired(identity.email, existing?.id ?? null))
      throw new BrowserFlowFailure('sso_required');
    const { user } = await this.accounts.resolve(identity, name, null);
    return this.browser.enter(user, request.client);
  }

  /**
   * Microsoft: a configured tenant (a GUID) must be the token's `tid`; its `email` counts as verified only with
   * `email_verified` or the optional claim `xms_edov` (domain owner verified). Google: for an address whose domain
   * an organization has verified, the account must belong to that Workspace (`hd` equal to the domain), so a
   * consumer account registered with a school address cannot pass for the school's.
   */
  private async checkProviderRules(
    name: ProviderName,
    identity: ExternalIdentity,
    claims: Record<string, unknown>,
  ): Promise<void> {
    let verified = identity.emailVerified;
    const microsoft = this.config.providers.microsoft;
    if (name === 'microsoft' && microsoft) {
      if (isTenantId(microsoft.tenant) && identity.tid !== microsoft.tenant.toLowerCase()) {
        throw new BrowserFlowFailure('oauth_invalid_token');
      }
      verified ||= claims.xms_edov === true;
    }
    if (!verified) throw new BrowserFlowFailure('oauth_email_unverified');
    if (name === 'google') {
      const domain = emailDomain(identity.email);
      if (domain && (await this.policy.verifiedDomainOf(identity.email)) && identity.hd !== domain) {
        throw new BrowserFlowFailure('oauth_email_unverified');
      }
    }
  }

  private target(name: string): OidcTarget {
    if (!isProvider(name)) throw ApiError.badRequest('unknown_provider', 'Unknown sign-in provider.');
    const provider = this.config.providers[name];
    if (!provider) {
      throw new ApiError('oauth_not_configured', 'This sign-in provider is not configured on this deployment.');
    }
    return {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      redirectUri: `${this.config.baseUrl}/api/v1/auth/oauth/${name}/callback`,
    };
  }
}
