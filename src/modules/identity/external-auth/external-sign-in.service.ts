import type { BrowserFlowFailureCode } from '@/core/http/side-channel-codes';
import { Injectable } from '@nestjs/common';
import type { ClientInfo } from '@/core/http/client-info';
import type { ChallengeContext } from '@/modules/identity/auth';
import type { User } from '@/modules/identity/users';
import { AccountLinker } from './account-linker';
import { type BrowserExit, BrowserSignIn } from './browser-sign-in';
import type { ExternalIdentity } from './claims';
import type { IdentityProvider } from './external-identities.repository';
import { OidcClients, type OidcTarget } from './oidc-clients';
import { type ConsumedSignIn, SignInStates, type StartedSignIn, type StartKind } from './sign-in-states';

/**
 * The OpenID Connect relying-party steps this area offers other sign-in flows (institutional SSO): single-use
 * states with nonce and PKCE, the authorization URL and code exchange, the account of an identity, and where
 * the browser goes once it is known. The one way into this area's machinery; its pure helpers and types are in
 * external-auth.types.ts.
 */
@Injectable()
export class ExternalSignInService {
  constructor(
    private readonly oidc: OidcClients,
    private readonly states: SignInStates,
    private readonly accounts: AccountLinker,
    private readonly browser: BrowserSignIn,
  ) {}

  /** Records the single-use state of a flow about to start. */
  startState(values: {
    kind: StartKind;
    connectionId?: string;
    test?: boolean;
    createdBy?: string | null;
  }): Promise<StartedSignIn> {
    return this.states.start(values);
  }

  /** What the start kept, with the state now used; null when unknown, used or expired. */
  consumeState(state: string, kind: StartKind): Promise<ConsumedSignIn | null> {
    return this.states.consume(state, kind);
  }

  /** The identity provider's authorization URL (throws `OidcFlowError` when its discovery fails). */
  authorizationUrl(
    target: OidcTarget,
    params: { state: string; nonce: string; codeChallenge: string; loginHint?: string | null },
  ): Promise<URL> {
    return this.oidc.authorizationUrl(target, params);
  }

  /** The validated ID token claims of the code in `callbackUrl` (throws `OidcFlowError`). */
  exchange(
    target: OidcTarget,
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<Record<string, unknown>> {
    return this.oidc.exchange(target, callbackUrl, checks);
  }

  /** The account of the identity: linked, else the verified email's (then linked), else a new one. */
  resolveAccount(
    identity: ExternalIdentity,
    provider: IdentityProvider,
    connectionId: string | null,
  ): Promise<{ user: User; created: boolean }> {
    return this.accounts.resolve(identity, provider, connectionId);
  }

  /** Opens the session (or the two-factor challenge) and says where the browser goes. */
  enter(user: User, client: ClientInfo, context: ChallengeContext = {}): Promise<BrowserExit> {
    return this.browser.enter(user, client, context);
  }

  loginError(code: BrowserFlowFailureCode): string {
    return this.browser.loginError(code);
  }

  /** An address of the web app. */
  web(path: string): string {
    return this.browser.web(path);
  }

  /** Why this issuer cannot be used (https, no credentials, query or fragment...), or null. */
  issuerProblem(issuer: string): string | null {
    return this.oidc.issuerProblem(issuer);
  }

  /** Forgets what discovery found for a registration (after it changed or was deleted). */
  forgetIssuer(target: Pick<OidcTarget, 'issuer' | 'clientId'>): void {
    this.oidc.forget(target);
  }
}
