import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import * as oidc from 'openid-client';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { GuardedNet } from '@/core/net/guarded-net';
import { isLoopbackHost, issuerProblem } from './issuer-policy';

/** An OpenID Connect relying-party registration: one provider, or one SSO connection. */
export interface OidcTarget {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
}

/** Why a sign-in did not complete, in the words of the browser-flow error codes. */
export type OidcFailure = 'discovery' | 'exchange' | 'invalid_token';

export class OidcFlowError extends Error {
  constructor(
    readonly failure: OidcFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OidcFlowError';
  }
}

const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const HTTP_TIMEOUT_SECONDS = 10;
const SCOPE = 'openid email profile';

/**
 * The OpenID Connect client side (openid-client): discovery of each issuer (cached an hour, per registration),
 * the authorization URL with state, nonce and PKCE S256, and the code exchange whose ID token openid-client
 * validates (signature by the published keys, iss, aud, exp, iat, nonce, and the `iss` response parameter).
 * Every request (discovery, JWKS, token endpoint) goes through the core's guarded fetch: an issuer, or an endpoint
 * its discovery document names, on a private address (or loopback in production) is never connected to.
 */
@Injectable()
export class OidcClients {
  private readonly logger = new Logger('OidcClients');
  private readonly configurations = new LRUCache<string, Promise<oidc.Configuration>>({
    max: 1000,
    ttl: DISCOVERY_TTL_MS,
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly net: GuardedNet,
  ) {}

  get allowLoopbackHttp(): boolean {
    return !this.config.isProduction;
  }

  /** Why this issuer cannot be used, or null. */
  issuerProblem(issuer: string): string | null {
    return issuerProblem(issuer, { allowLoopbackHttp: this.allowLoopbackHttp });
  }

  async authorizationUrl(
    target: OidcTarget,
    params: { state: string; nonce: string; codeChallenge: string; loginHint?: string | null },
  ): Promise<URL> {
    const configuration = await this.configuration(target);
    const query: Record<string, string> = {
      response_type: 'code',
      redirect_uri: target.redirectUri,
      scope: SCOPE,
      state: params.state,
      nonce: params.nonce,
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
    };
    if (params.loginHint) query.login_hint = params.loginHint;
    return oidc.buildAuthorizationUrl(configuration, query);
  }

  /**
   * Exchanges the code of `callbackUrl` (the redirect URI plus the query the provider sent) with the PKCE
   * verifier and returns the validated ID token claims.
   */
  async exchange(
    target: OidcTarget,
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<Record<string, unknown>> {
    const configuration = await this.configuration(target);
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedNonce: checks.nonce,
        expectedState: checks.state,
        idTokenExpected: true,
      });
    } catch (err) {
      throw new OidcFlowError(classify(err), 'The code exchange failed', { cause: err });
    }
    const claims = tokens.claims();
    if (!claims) throw new OidcFlowError('invalid_token', 'No ID token');
    return { ...claims };
  }

  /** Forgets what discovery found for an issuer (after an SSO connection changes or is deleted). */
  forget(target: Pick<OidcTarget, 'issuer' | 'clientId'>): void {
    for (const key of this.configurations.keys()) {
      if (key.startsWith(`${target.issuer}\n${target.clientId}\n`)) this.configurations.delete(key);
    }
  }

  private configuration(target: OidcTarget): Promise<oidc.Configuration> {
    const key = `${target.issuer}\n${target.clientId}\n${target.clientSecret}`;
    let pending = this.configurations.get(key);
    if (!pending) {
      pending = this.discover(target);
      this.configurations.set(key, pending);
      // A failed discovery is not remembered: the next sign-in tries again.
      pending.catch(() => this.configurations.delete(key));
    }
    return pending;
  }

  private async discover(target: OidcTarget): Promise<oidc.Configuration> {
    const problem = this.issuerProblem(target.issuer);
    if (problem) throw new OidcFlowError('discovery', `The issuer ${problem}`);
    const issuerUrl = new URL(target.issuer);
    const loopback = issuerUrl.protocol === 'http:' && isLoopbackHost(issuerUrl.hostname);
    let configuration: oidc.Configuration;
    try {
      configuration = await oidc.discovery(
        issuerUrl,
        target.clientId,
        { client_secret: target.clientSecret },
        oidc.ClientSecretPost(target.clientSecret),
        {
          execute: loopback ? [oidc.allowInsecureRequests] : [],
          timeout: HTTP_TIMEOUT_SECONDS,
          // Discovery, and through the configuration every later call (JWKS, token endpoint), connect only to
          // public addresses, checked in the connection's own look-up (extensions-v3 6.7).
          [oidc.customFetch]: (url, options) => this.net.guardedFetch(url, options as RequestInit),
        },
      );
    } catch (err) {
      this.logger.warn({ err, issuer: target.issuer }, 'OpenID discovery failed');
      throw new OidcFlowError('discovery', 'OpenID discovery failed', { cause: err });
    }
    // The ID token's signature is checked against the issuer's published keys (jwks_uri), not only trusted for
    // arriving over the token endpoint's TLS connection (which OpenID Connect Core 3.1.3.7 would allow).
    oidc.enableNonRepudiationChecks(configuration);
    // The endpoints the issuer publishes obey the same rule as the issuer (no plain http off loopback).
    const metadata = configuration.serverMetadata();
    for (const endpoint of [metadata.authorization_endpoint, metadata.token_endpoint, metadata.jwks_uri]) {
      if (!endpoint || this.issuerProblemOfEndpoint(endpoint)) {
        throw new OidcFlowError('discovery', 'The issuer publishes an endpoint that is not allowed');
      }
    }
    return configuration;
  }

  private issuerProblemOfEndpoint(endpoint: string): string | null {
    const url = new URL(endpoint);
    // Endpoints may carry a query (some providers add one); the scheme and host rules are what matter.
    url.search = '';
    return this.issuerProblem(url.href);
  }
}

/** Token-endpoint and transport failures are `exchange`; anything about the ID token itself is `invalid_token`. */
function classify(err: unknown): OidcFailure {
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.WWWAuthenticateChallengeError) return 'exchange';
  if (err instanceof oidc.AuthorizationResponseError) return 'exchange';
  if (err instanceof TypeError) return 'exchange';
  const code = (err as { code?: unknown }).code;
  if (
    code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' ||
    code === 'OAUTH_RESPONSE_IS_NOT_JSON' ||
    code === 'OAUTH_TIMEOUT' ||
    code === 'OAUTH_ABORT' ||
    code === 'OAUTH_HTTP_REQUEST_FORBIDDEN'
  ) {
    return 'exchange';
  }
  return 'invalid_token';
}
