import { Injectable } from '@nestjs/common';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { MailService } from '@/core/mail/mail.service';
import { type User, UsersService } from '@/modules/identity/users';
import { PASSKEY_CLONE_DETECTED } from './passkeys.mails';
import { type ChallengePurpose, type ChallengeRow, type PasskeyRow, PasskeysRepository } from './passkeys.repository';
import { CHALLENGE_TTL_MS, challengeOf, WebAuthnRelyingParty } from './relying-party';

/** What an assertion must satisfy besides the WebAuthn rules: its owner (when known) and user verification. */
export interface AssertionOptions {
  readonly ownerId?: string;
  readonly requireUserVerification: boolean;
  readonly ip: string | undefined;
}

/** Where a challenge is bound: to a person, and to a session or a pending two-factor sign-in. */
export interface ChallengeBinding {
  readonly userId: string | null;
  readonly binding: string | null;
}

export const PASSKEY_INVALID = 'The passkey could not be verified.';
export const CHALLENGE_EXPIRED = 'The passkey challenge has expired or was already used. Start again.';

/**
 * What every passkey ceremony shares: one-time challenges kept in PostgreSQL (any instance verifies what another
 * issued; taken, so used once, whatever the outcome; 5 minutes by the Clock) and the check of an assertion against
 * the stored passkey, with the clone rule (a verified counter that did not increase while the stored one is above
 * 0 disables the passkey, is audited and tells the person by email).
 */
@Injectable()
export class PasskeyCeremonies {
  constructor(
    private readonly repository: PasskeysRepository,
    private readonly rp: WebAuthnRelyingParty,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly mail: MailService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly crypto: CryptoService,
  ) {}

  /** 32 random bytes, stored as their base64url (what `clientDataJSON.challenge` will carry). */
  async issueChallenge(
    purpose: ChallengePurpose,
    bound: ChallengeBinding,
  ): Promise<{ id: string; challenge: Uint8Array }> {
    const value = this.crypto.randomToken(32);
    const now = this.clock.now();
    const id = await this.repository.createChallenge({
      purpose,
      challenge: value,
      userId: bound.userId,
      binding: bound.binding,
      now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
    });
    return { id, challenge: new Uint8Array(Buffer.from(value, 'base64url')) };
  }

  /** Takes the challenge an answer names (by its `clientDataJSON`), if it was issued with this binding and is live. */
  async takeAnswered(
    response: { response: { clientDataJSON: string } },
    purpose: ChallengePurpose,
    bound: ChallengeBinding,
  ): Promise<ChallengeRow | null> {
    const value = challengeOf(response);
    if (!value) return null;
    const row = await this.repository.takeChallenge(value, purpose, bound.userId, bound.binding);
    return row && this.isLive(row) ? row : null;
  }

  /**
   * Takes a challenge by its id (passwordless sign-in), reading the passkey the answer names in the same round trip;
   * 401 `challenge_expired` when missing, used or expired. The challenge is taken whatever follows; the passkey (or
   * null) goes to `checkAssertionOf`.
   */
  async takeByIdFor(
    id: string,
    purpose: ChallengePurpose,
    response: AuthenticationResponseJSON,
  ): Promise<{ challenge: ChallengeRow; passkey: PasskeyRow | null }> {
    const { challenge, passkey } = await this.repository.takeChallengeWithPasskey(id, purpose, response.id);
    if (!challenge || !this.isLive(challenge)) throw ApiError.unauthorized(CHALLENGE_EXPIRED, 'challenge_expired');
    return { challenge, passkey };
  }

  /**
   * Checks an assertion for `challenge`: the passkey (by credential id, live, of `ownerId` when given), every
   * WebAuthn rule, then the counter. Answers the passkey and its owner; 401 `passkey_invalid` otherwise.
   */
  async checkAssertion(
    response: AuthenticationResponseJSON,
    challenge: string,
    options: AssertionOptions,
  ): Promise<{ passkey: PasskeyRow; user: User }> {
    return this.checkAssertionOf(await this.repository.findByCredentialId(response.id), response, challenge, options);
  }

  /**
   * `checkAssertion` with the passkey already read (null: none has the answer's credential id). `alongside` (the
   * caller's own rules for the owner) runs while the use is recorded: a stale counter answers 401 `passkey_invalid`
   * before any error of `alongside`, which is thrown next; the use stays recorded either way, as when the caller
   * checks its rules after this.
   */
  async checkAssertionOf(
    passkey: PasskeyRow | null,
    response: AuthenticationResponseJSON,
    challenge: string,
    options: AssertionOptions & { alongside?: (user: User) => Promise<void> },
  ): Promise<{ passkey: PasskeyRow; user: User }> {
    if (!passkey || passkey.disabled_at || (options.ownerId !== undefined && passkey.user_id !== options.ownerId)) {
      throw ApiError.unauthorized(PASSKEY_INVALID, 'passkey_invalid');
    }
    const handle = response.response.userHandle;
    if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== passkey.user_id) {
      throw ApiError.unauthorized(PASSKEY_INVALID, 'passkey_invalid');
    }
    const verified = await this.rp.verifyAssertion(response, challenge, passkey, options.requireUserVerification);
    if (!verified) throw ApiError.unauthorized(PASSKEY_INVALID, 'passkey_invalid');
    const user = await this.users.getById(passkey.user_id);
    const stored = BigInt(passkey.counter);
    if (stored > 0n && BigInt(verified.newCounter) <= stored) {
      await this.disableClone(passkey, user, options.ip);
      throw ApiError.unauthorized(PASSKEY_INVALID, 'passkey_invalid');
    }
    const [recorded, rules] = await Promise.allSettled([
      this.repository.recordUse(passkey.id, passkey.counter, verified.newCounter, this.clock.now()),
      options.alongside?.(user),
    ]);
    if (recorded.status === 'rejected') throw recorded.reason;
    if (!recorded.value) {
      // Another answer of the same passkey moved the counter (or disabled it) meanwhile: this one is stale.
      throw ApiError.unauthorized(PASSKEY_INVALID, 'passkey_invalid');
    }
    if (rules.status === 'rejected') throw rules.reason;
    return { passkey, user };
  }

  private async disableClone(passkey: PasskeyRow, user: User, ip: string | undefined): Promise<void> {
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      if (!(await this.repository.disable(passkey.id, 'clone_detected', now, tx))) return;
      await this.audit.record(
        {
          action: 'passkey.clone_detected',
          actorId: null,
          organizationId: null,
          targetType: 'passkey',
          targetId: passkey.id,
          ip,
          metadata: { user_id: user.id, stored_counter: Number(passkey.counter) },
        },
        tx,
      );
      await this.mail.send(
        PASSKEY_CLONE_DETECTED,
        { passkeyName: passkey.name },
        { to: user.email, locale: this.users.emailLocale(user), organizationId: null, tx },
      );
    });
  }

  private isLive(row: ChallengeRow): boolean {
    return row.expires_at.getTime() > this.clock.nowMs();
  }
}
