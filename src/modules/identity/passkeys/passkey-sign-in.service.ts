import { Injectable } from '@nestjs/common';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { browserSessionId, type Credential } from '@/core/auth/credential';
import { ApiError } from '@/core/http/api-error';
import type { ClientInfo } from '@/core/http/client-info';
import type { CookieChange } from '@/core/http/cookies';
import { type SignedIn, SignInService, StepUpService, TwoFactorService } from '@/modules/identity/auth';
import type { User } from '@/modules/identity/users';
import { CHALLENGE_EXPIRED, PasskeyCeremonies } from './passkey-ceremonies.service';
import { PasskeysRepository } from './passkeys.repository';
import { WebAuthnRelyingParty } from './relying-party';

/**
 * Signing in with a passkey: passwordless (a discoverable credential with user verification is both factors and
 * opens the session email-code sign-in opens, under the same SSO and account rules), as the second factor of an
 * email-code sign-in (the pending `svc_2fa` challenge), and as a step-up of the current session.
 */
@Injectable()
export class PasskeySignInService {
  constructor(
    private readonly ceremonies: PasskeyCeremonies,
    private readonly repository: PasskeysRepository,
    private readonly rp: WebAuthnRelyingParty,
    private readonly signIn: SignInService,
    private readonly stepUp: StepUpService,
    private readonly twoFactor: TwoFactorService,
  ) {}

  async signInOptions(): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
    const { id, challenge } = await this.ceremonies.issueChallenge('sign_in', { userId: null, binding: null });
    return { challenge_id: id, options: await this.rp.authenticationOptions([], 'required', challenge) };
  }

  async signInVerify(challengeId: string, response: AuthenticationResponseJSON, client: ClientInfo): Promise<SignedIn> {
    const { challenge, passkey } = await this.ceremonies.takeByIdFor(challengeId, 'sign_in', response);
    const { user } = await this.ceremonies.checkAssertionOf(passkey, response, challenge.challenge, {
      requireUserVerification: true,
      ip: client.ip,
      alongside: (owner) => this.assertMaySignIn(owner),
    });
    return this.signIn.enterVerified(user, client);
  }

  async stepUpOptions(credential: Credential): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const sessionId = browserSessionId(credential);
    const own = await this.livePasskeys(credential.userId);
    const { challenge } = await this.ceremonies.issueChallenge('step_up', {
      userId: credential.userId,
      binding: sessionId,
    });
    return this.rp.authenticationOptions(own, 'required', challenge);
  }

  async stepUpVerify(
    credential: Credential,
    response: AuthenticationResponseJSON,
    ip: string | undefined,
  ): Promise<CookieChange[]> {
    const sessionId = browserSessionId(credential);
    const challenge = await this.ceremonies.takeAnswered(response, 'step_up', {
      userId: credential.userId,
      binding: sessionId,
    });
    if (!challenge) throw ApiError.unauthorized(CHALLENGE_EXPIRED, 'challenge_expired');
    await this.ceremonies.checkAssertion(response, challenge.challenge, {
      ownerId: credential.userId,
      requireUserVerification: true,
      ip,
    });
    return this.stepUp.grant(credential);
  }

  async twoFactorOptions(challengeToken: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const pending = await this.twoFactor.pendingChallenge(challengeToken);
    const own = await this.livePasskeys(pending.user.id);
    const { challenge } = await this.ceremonies.issueChallenge('two_factor', {
      userId: pending.user.id,
      binding: pending.challengeId,
    });
    return this.rp.authenticationOptions(own, 'preferred', challenge);
  }

  /** The passkey is the second factor: possession of the person's own passkey, verified or not by the device. */
  async twoFactorVerify(
    challengeToken: string | undefined,
    response: AuthenticationResponseJSON,
    client: ClientInfo,
  ): Promise<SignedIn> {
    return this.signIn.completeTwoFactor(
      challengeToken,
      async (user, challengeId) => {
        const challenge = await this.ceremonies.takeAnswered(response, 'two_factor', {
          userId: user.id,
          binding: challengeId,
        });
        if (!challenge) throw ApiError.unauthorized(CHALLENGE_EXPIRED, 'challenge_expired');
        await this.ceremonies.checkAssertion(response, challenge.challenge, {
          ownerId: user.id,
          requireUserVerification: false,
          ip: client.ip,
        });
      },
      client,
    );
  }

  /** The rules every sign-in obeys: an erased (suspended) account cannot, and an SSO domain's addresses must use SSO. */
  private async assertMaySignIn(user: User): Promise<void> {
    if (user.erasedAt) throw ApiError.forbidden('This account is suspended.', 'account_suspended');
    await this.signIn.assertAccountMayUseEmailCode(user);
  }

  private async livePasskeys(userId: string) {
    return (await this.repository.listOf(userId)).filter((p) => !p.disabled_at);
  }
}
