import { Inject, Injectable } from '@nestjs/common';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { PasskeyRow } from './passkeys.repository';

/** Challenges and their answers live 5 minutes (extensions-v3 3). */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** What a verified registration stores. */
export interface VerifiedRegistration {
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  deviceType: 'single_device' | 'multi_device';
  backedUp: boolean;
  transports: string[];
  aaguid: string | null;
}

/** What a verified assertion tells. */
export interface VerifiedAssertion {
  newCounter: number;
  userVerified: boolean;
}

/** The `challenge` an answer's `clientDataJSON` carries (base64url), or null when it cannot be read. */
export function challengeOf(response: { response: { clientDataJSON: string } }): string | null {
  try {
    const data = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as unknown;
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 128 ? challenge : null;
  } catch {
    return null;
  }
}

const descriptor = (p: PasskeyRow): { id: string; transports: string[] } => ({
  id: p.credential_id,
  transports: p.transports,
});

/**
 * The relying party: every WebAuthn option and check goes through `@simplewebauthn/server` with this
 * deployment's RP ID, name and origins. Attestation `none`; the challenge is given by the caller (32 random bytes).
 */
@Injectable()
export class WebAuthnRelyingParty {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.passkeys.enabled;
  }

  registrationOptions(
    user: { id: string; email: string; name: string | null },
    existing: readonly PasskeyRow[],
    challenge: Uint8Array,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return webauthn().generateRegistrationOptions({
      rpName: this.config.passkeys.rpName,
      rpID: this.config.passkeys.rpId,
      userName: user.email,
      userDisplayName: user.name ?? user.email,
      userID: new Uint8Array(Buffer.from(user.id, 'utf8')),
      challenge: new Uint8Array(challenge),
      timeout: CHALLENGE_TTL_MS,
      attestationType: 'none',
      excludeCredentials: existing.map(descriptor),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
  }

  authenticationOptions(
    allow: readonly PasskeyRow[],
    userVerification: 'required' | 'preferred',
    challenge: Uint8Array,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return webauthn().generateAuthenticationOptions({
      rpID: this.config.passkeys.rpId,
      allowCredentials: allow.map(descriptor),
      userVerification,
      challenge: new Uint8Array(challenge),
      timeout: CHALLENGE_TTL_MS,
    });
  }

  /** Verifies a registration; null when any check fails (origin, RP ID, challenge, format, signature). */
  async verifyRegistration(
    response: RegistrationResponseJSON,
    challenge: string,
  ): Promise<VerifiedRegistration | null> {
    try {
      const result = await webauthn().verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: [...this.config.passkeys.origins],
        expectedRPID: this.config.passkeys.rpId,
        requireUserVerification: false,
      });
      if (!result.verified) return null;
      const info = result.registrationInfo;
      return {
        credentialId: info.credential.id,
        publicKey: info.credential.publicKey,
        counter: info.credential.counter,
        deviceType: info.credentialDeviceType === 'multiDevice' ? 'multi_device' : 'single_device',
        backedUp: info.credentialBackedUp,
        transports: info.credential.transports ?? response.response.transports ?? [],
        aaguid: info.aaguid,
      };
    } catch {
      return null;
    }
  }

  /**
   * Verifies an assertion against a stored passkey; null when any check fails. The library is given a stored
   * counter of 0 so it checks the signature before anything is concluded from the counter: the caller applies the
   * clone rule to a verified answer only (an unsigned low counter must not disable anyone's passkey).
   */
  async verifyAssertion(
    response: AuthenticationResponseJSON,
    challenge: string,
    passkey: PasskeyRow,
    requireUserVerification: boolean,
  ): Promise<VerifiedAssertion | null> {
    try {
      const result = await webauthn().verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: [...this.config.passkeys.origins],
        expectedRPID: this.config.passkeys.rpId,
        credential: {
          id: passkey.credential_id,
          publicKey: new Uint8Array(passkey.public_key),
          counter: 0,
        },
        requireUserVerification,
      });
      if (!result.verified) return null;
      return {
        newCounter: result.authenticationInfo.newCounter,
        userVerified: result.authenticationInfo.userVerified,
      };
    } catch {
      return null;
    }
  }
}

/**
 * @simplewebauthn/server and its ASN.1/X.509 stack (~290 modules), loaded at the first ceremony rather than at start
 * (every process and every test boot paid for it).
 */
function webauthn(): typeof import('@simplewebauthn/server') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@simplewebauthn/server') as typeof import('@simplewebauthn/server');
}
