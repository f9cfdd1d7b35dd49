import { Injectable } from '@nestjs/common';
import type QRCode from 'qrcode';
import speakeasy from 'speakeasy';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { clearCookie, COOKIE, type CookieChange, setCookie } from '@/core/http/cookies';
import { MailService } from '@/core/mail/mail.service';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { type User, UsersService } from '@/modules/identity/users';
import { TWO_FACTOR_DISABLED, TWO_FACTOR_ENABLED } from './auth.mails';
import { FAILED_ATTEMPTS_ACCOUNT } from './auth.limits';
import { type ChallengeContext, TwoFactorRepository } from './two-factor.repository';

export type { ChallengeContext } from './two-factor.repository';

export const TOTP_ISSUER = 'Learning Platform';
export const TOTP_STEP_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
export const CHALLENGE_TTL_SECONDS = 5 * 60;
export const CHALLENGE_MAX_ATTEMPTS = 5;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_FORMAT = /^[a-z0-9]{5}-[a-z0-9]{5}$/;

export interface TwoFactorStatus {
  enabled: boolean;
  recovery_codes_left: number;
  required: boolean;
}

/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30 s, one step either side) with the secret encrypted at rest, each code
 * accepted once; 10 one-time recovery codes stored hashed; the 5-minute sign-in challenge of two-factor accounts.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly users: UsersService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly repository: TwoFactorRepository,
    private readonly transactions: TransactionRunner,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly limits: RateLimitService,
  ) {}

  async status(userId: string): Promise<TwoFactorStatus> {
    const user = await this.users.getById(userId);
    return {
      enabled: user.twoFactorEnabledAt !== null,
      recovery_codes_left: await this.repository.countUnusedRecoveryCodes(userId),
      required: false,
    };
  }

  async setup(credential: Credential): Promise<{ secret: string; otpauth_uri: string; qr_svg: string }> {
    const user = await this.users.getById(credential.userId);
    if (user.twoFactorEnabledAt)
      throw ApiError.conflict('two_factor_already_enabled', 'Two-factor authentication is already on.');
    const secret = speakeasy.generateSecret({ length: 20 }).base32;
    const otpauthUri = speakeasy.otpauthURL({
      secret,
      encoding: 'base32',
      // `Issuer:account`, the label form authenticator apps group and display best (speakeasy does not encode it).
      label: `${encodeURIComponent(TOTP_ISSUER)}:${encodeURIComponent(user.email)}`,
      issuer: TOTP_ISSUER,
      algorithm: 'sha1',
      digits: 6,
      period: TOTP_STEP_SECONDS,
    });
    await this.users.setTwoFactor(user.id, { twoFactorSecret: this.crypto.encrypt(secret), twoFactorLastStep: null });
    const qrSvg = await qrcode().toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { secret, otpauth_uri: otpauthUri, qr_svg: qrSvg };
  }

  async enable(credential: Credential, code: string, ip: string | undefined): Promise<{ recovery_codes: string[] }> {
    const user = await this.users.getById(credential.userId);
    if (user.twoFactorEnabledAt)
      throw ApiError.conflict('two_factor_already_enabled', 'Two-factor authentication is already on.');
    if (!user.twoFactorSecret) throw ApiError.conflict('two_factor_not_started', 'Start the two-factor setup first.');
    if (!(await this.checkTotp(user, code))) throw ApiError.badRequest('invalid_totp', 'The code is not valid.');
    const codes = await this.transactions.run(async (tx) => {
      await this.users.setTwoFactor(user.id, { twoFactorEnabledAt: this.clock.now() }, tx);
      const fresh = await this.replaceRecoveryCodes(user.id, tx);
      await this.audit.record(
        {
          action: 'two_factor.enabled',
          actorId: user.id,
          organizationId: null,
          targetType: 'user',
          targetId: user.id,
          ip,
        },
        tx,
      );
      await this.mail.send(TWO_FACTOR_ENABLED, {}, { to: user.email, locale: user.locale, organizationId: null, tx });
      return fresh;
    });
    return { recovery_codes: codes };
  }

  async disable(credential: Credential, ip: string | undefined): Promise<void> {
    const user = await this.users.getById(credential.userId);
    if (!user.twoFactorEnabledAt)
      throw ApiError.conflict('two_factor_not_enabled', 'Two-factor authentication is not on.');
    await this.transactions.run(async (tx) => {
      await this.users.setTwoFactor(
        user.id,
        { twoFactorSecret: null, twoFactorEnabledAt: null, twoFactorLastStep: null },
        tx,
      );
      await this.repository.replaceRecoveryCodes(user.id, [], this.clock.now(), tx);
      await this.audit.record(
        {
          action: 'two_factor.disabled',
          actorId: user.id,
          organizationId: null,
          targetType: 'user',
          targetId: user.id,
          ip,
        },
        tx,
      );
      await this.mail.send(TWO_FACTOR_DISABLED, {}, { to: user.email, locale: user.locale, organizationId: null, tx });
    });
  }

  async regenerateRecoveryCodes(credential: Credential): Promise<{ recovery_codes: string[] }> {
    const user = await this.users.getById(credential.userId);
    if (!user.twoFactorEnabledAt)
      throw ApiError.conflict('two_factor_not_enabled', 'Two-factor authentication is not on.');
    const codes = await this.transactions.run((tx) => this.replaceRecoveryCodes(user.id, tx));
    return { recovery_codes: codes };
  }

  /** A current TOTP code, accepted once (the time step must be newer than the last accepted one). */
  async checkTotp(user: User, code: string): Promise<boolean> {
    if (!user.twoFactorSecret || !/^\d{6}$/.test(code)) return false;
    const secret = this.crypto.decrypt(user.twoFactorSecret);
    const time = this.clock.nowSeconds();
    const match = speakeasy.totp.verifyDelta({
      secret,
      encoding: 'base32',
      token: code,
      window: 1,
      time,
      step: TOTP_STEP_SECONDS,
    });
    if (!match) return false;
    const step = Math.floor(time / TOTP_STEP_SECONDS) + match.delta;
    return this.users.acceptTotpStep(user.id, step);
  }

  /** A TOTP code or an unused recovery code (`xxxxx-xxxxx`), which is then spent. */
  async checkSecondFactor(user: User, code: string): Promise<boolean> {
    const normalized = code.trim().toLowerCase();
    if (RECOVERY_FORMAT.test(normalized)) {
      return this.repository.spendRecoveryCode(
        user.id,
        this.crypto.keyedHash('recovery-code', normalized),
        this.clock.now(),
      );
    }
    return this.checkTotp(user, normalized);
  }

  /** Starts the sign-in challenge: a 5-minute HttpOnly `svc_2fa` cookie naming a single-use challenge. */
  async startChallenge(user: User, context: ChallengeContext = {}): Promise<CookieChange[]> {
    const token = this.crypto.randomToken(32);
    const now = this.clock.now();
    await this.repository.createChallenge({
      userId: user.id,
      tokenHash: this.crypto.sha256(token),
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000),
      context,
      now,
    });
    return [setCookie(COOKIE.twoFactor, token, CHALLENGE_TTL_SECONDS)];
  }

  /**
   * Completes the challenge named by the `svc_2fa` cookie's `token` with a second factor. 401 (clearing the
   * cookie) when the challenge is missing, expired, used or out of attempts; 400 `invalid_totp` for a wrong code.
   */
  async completeChallenge(
    token: string | undefined,
    code: string,
  ): Promise<{ user: User; context: ChallengeContext; cookies: CookieChange[] }> {
    return this.completeChallengeWith(token, async (user) => {
      if (await this.checkSecondFactor(user, code)) return;
      await this.limits.consume(FAILED_ATTEMPTS_ACCOUNT, user.email);
      throw ApiError.badRequest('invalid_totp', 'The code is not valid.');
    });
  }

  /**
   * The live challenge named by the `svc_2fa` cookie's `token` and its person; 401 (clearing the cookie) when it is
   * missing, expired, used or out of attempts. Other second factors (passkeys) bind their own proof to its id.
   */
  async pendingChallenge(token: string | undefined): Promise<{ challengeId: string; user: User }> {
    const challenge = await this.liveChallenge(token);
    return { challengeId: challenge.id, user: await this.users.getById(challenge.user_id) };
  }

  /**
   * Completes the challenge with a second factor `check` proves (it throws its own error when the proof fails;
   * the failure counts as an attempt). TOTP and recovery codes go through `completeChallenge`.
   */
  async completeChallengeWith(
    token: string | undefined,
    check: (user: User, challengeId: string) => Promise<void>,
  ): Promise<{ user: User; context: ChallengeContext; cookies: CookieChange[] }> {
    const challenge = await this.liveChallenge(token);
    const user = await this.users.getById(challenge.user_id);
    try {
      await check(user, challenge.id);
    } catch (error) {
      await this.repository.countChallengeAttempt(challenge.id);
      throw error;
    }
    if (!(await this.repository.useChallenge(challenge.id, this.clock.now()))) {
      throw ApiError.unauthorized('The two-factor challenge was already used. Sign in again.').withCookies([
        clearCookie(COOKIE.twoFactor),
      ]);
    }
    return { user, context: challenge.context, cookies: [clearCookie(COOKIE.twoFactor)] };
  }

  private async liveChallenge(token: string | undefined) {
    const now = this.clock.now();
    const challenge = token ? await this.repository.findChallenge(this.crypto.sha256(token)) : null;
    if (
      !challenge ||
      challenge.used_at ||
      challenge.expires_at.getTime() <= now.getTime() ||
      challenge.attempts >= CHALLENGE_MAX_ATTEMPTS
    ) {
      throw ApiError.unauthorized('The two-factor challenge is missing or has expired. Sign in again.').withCookies([
        clearCookie(COOKIE.twoFactor),
      ]);
    }
    return challenge;
  }

  private async replaceRecoveryCodes(userId: string, tx: Tx): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const raw = this.crypto.randomFromAlphabet(RECOVERY_ALPHABET, 10);
      return `${raw.slice(0, 5)}-${raw.slice(5)}`;
    });
    await this.repository.replaceRecoveryCodes(
      userId,
      codes.map((code) => this.crypto.keyedHash('recovery-code', code)),
      this.clock.now(),
      tx,
    );
    return codes;
  }
}

/** qrcode, loaded when first drawn rather than at start. */
function qrcode(): typeof QRCode {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('qrcode') as typeof QRCode;
}
