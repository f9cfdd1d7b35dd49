import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import QRCode from 'qrcode';
import speakeasy from 'speakeasy';
import { DataSource } from 'typeorm';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { COOKIE, CookieService } from '@/core/http/cookies';
import { MailService } from '@/core/mail/mail.service';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import type { UserEntity } from '@/modules/users/entities/user.entity';
import { UsersService } from '@/modules/users/users.service';
import { TWO_FACTOR_DISABLED, TWO_FACTOR_ENABLED } from './auth.mails';
import { FAILED_ATTEMPTS_ACCOUNT } from './auth.rate-limits';

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

/** What a challenge carries to the step after it (an accepted invitation's organization, for instance). */
export interface ChallengeContext {
  organizationId?: string;
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
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly cookies: CookieService,
    private readonly limits: RateLimitService,
  ) {}

  async status(userId: string): Promise<TwoFactorStatus> {
    const user = await this.users.getById(userId);
    return {
      enabled: user.twoFactorEnabledAt !== null,
      recovery_codes_left: await this.recoveryCodesLeft(userId),
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
    const qrSvg = await QRCode.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { secret, otpauth_uri: otpauthUri, qr_svg: qrSvg };
  }

  async enable(credential: Credential, code: string, req: Request): Promise<{ recovery_codes: string[] }> {
    const user = await this.users.getById(credential.userId);
    if (user.twoFactorEnabledAt)
      throw ApiError.conflict('two_factor_already_enabled', 'Two-factor authentication is already on.');
    if (!user.twoFactorSecret) throw ApiError.conflict('two_factor_not_started', 'Start the two-factor setup first.');
    if (!(await this.checkTotp(user, code))) throw ApiError.badRequest('invalid_totp', 'The code is not valid.');
    const codes = await this.transactions.run(async (tx) => {
      await this.users.setTwoFactor(user.id, { twoFactorEnabledAt: this.clock.now() }, tx);
      const fresh = await this.replaceRecoveryCodes(user.id, tx.manager);
      await this.audit.record(
        {
          action: 'two_factor.enabled',
          actorId: user.id,
          organizationId: null,
          targetType: 'user',
          targetId: user.id,
          ip: req.ip,
        },
        tx,
      );
      await this.mail.send(TWO_FACTOR_ENABLED, {}, { to: user.email, locale: user.locale, organizationId: null, tx });
      return fresh;
    });
    return { recovery_codes: codes };
  }

  async disable(credential: Credential, req: Request): Promise<void> {
    const user = await this.users.getById(credential.userId);
    if (!user.twoFactorEnabledAt)
      throw ApiError.conflict('two_factor_not_enabled', 'Two-factor authentication is not on.');
    await this.transactions.run(async (tx) => {
      await this.users.setTwoFactor(
        user.id,
        { twoFactorSecret: null, twoFactorEnabledAt: null, twoFactorLastStep: null },
        tx,
      );
      await tx.manager.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [user.id]);
      await this.audit.record(
        {
          action: 'two_factor.disabled',
          actorId: user.id,
          organizationId: null,
          targetType: 'user',
          targetId: user.id,
          ip: req.ip,
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
    const codes = await this.transactions.run((tx) => this.replaceRecoveryCodes(user.id, tx.manager));
    return { recovery_codes: codes };
  }

  /** A current TOTP code, accepted once (the time step must be newer than the last accepted one). */
  async checkTotp(user: UserEntity, code: string): Promise<boolean> {
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
  async checkSecondFactor(user: UserEntity, code: string): Promise<boolean> {
    const normalized = code.trim().toLowerCase();
    if (RECOVERY_FORMAT.test(normalized)) {
      const [, count] = await this.dataSource.query<[unknown[], number]>(
        `UPDATE recovery_codes SET used_at = $3 WHERE id = (
           SELECT id FROM recovery_codes WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL LIMIT 1)
         AND used_at IS NULL`,
        [user.id, this.crypto.keyedHash('recovery-code', normalized), this.clock.now()],
      );
      return count === 1;
    }
    return this.checkTotp(user, normalized);
  }

  /** Starts the sign-in challenge: a 5-minute HttpOnly `svc_2fa` cookie naming a single-use challenge. */
  async startChallenge(user: UserEntity, res: Response, context: ChallengeContext = {}): Promise<void> {
    const token = this.crypto.randomToken(32);
    const now = this.clock.now();
    await this.dataSource.query(
      `INSERT INTO auth_challenges (user_id, kind, token_hash, expires_at, context, created_at) VALUES ($1, 'two_factor', $2, $3, $4, $5)`,
      [
        user.id,
        this.crypto.sha256(token),
        new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000),
        JSON.stringify(context),
        now,
      ],
    );
    this.cookies.set(res, COOKIE.twoFactor, token, CHALLENGE_TTL_SECONDS);
  }

  /**
   * Completes the challenge of the request's `svc_2fa` cookie with a second factor. 401 when the challenge is
   * missing, expired, used or out of attempts; 400 `invalid_totp` for a wrong code.
   */
  async completeChallenge(
    req: Request,
    res: Response,
    code: string,
  ): Promise<{ user: UserEntity; context: ChallengeContext }> {
    const token = (req.cookies as Record<string, string> | undefined)?.[COOKIE.twoFactor];
    const now = this.clock.now();
    const rows = token
      ? await this.dataSource.query<
          {
            id: string;
            user_id: string;
            attempts: number;
            expires_at: Date;
            used_at: Date | null;
            context: ChallengeContext;
          }[]
        >(
          `SELECT id, user_id, attempts, expires_at, used_at, context FROM auth_challenges WHERE token_hash = $1 AND kind = 'two_factor'`,
          [this.crypto.sha256(token)],
        )
      : [];
    const challenge = rows[0];
    if (
      !challenge ||
      challenge.used_at ||
      challenge.expires_at.getTime() <= now.getTime() ||
      challenge.attempts >= CHALLENGE_MAX_ATTEMPTS
    ) {
      this.cookies.clear(res, COOKIE.twoFactor);
      throw ApiError.unauthorized('The two-factor challenge is missing or has expired. Sign in again.');
    }
    const user = await this.users.getById(challenge.user_id);
    if (!(await this.checkSecondFactor(user, code))) {
      await this.dataSource.query(`UPDATE auth_challenges SET attempts = attempts + 1 WHERE id = $1`, [challenge.id]);
      await this.limits.consume(FAILED_ATTEMPTS_ACCOUNT, user.email);
      throw ApiError.badRequest('invalid_totp', 'The code is not valid.');
    }
    const [, used] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE auth_challenges SET used_at = $2 WHERE id = $1 AND used_at IS NULL`,
      [challenge.id, now],
    );
    this.cookies.clear(res, COOKIE.twoFactor);
    if (used !== 1) throw ApiError.unauthorized('The two-factor challenge was already used. Sign in again.');
    return { user, context: challenge.context };
  }

  private async recoveryCodesLeft(userId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL`,
      [userId],
    );
    return row?.n ?? 0;
  }

  private async replaceRecoveryCodes(userId: string, manager: DataSource['manager']): Promise<string[]> {
    await manager.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId]);
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const raw = this.crypto.randomFromAlphabet(RECOVERY_ALPHABET, 10);
      return `${raw.slice(0, 5)}-${raw.slice(5)}`;
    });
    for (const code of codes) {
      await manager.query(`INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES ($1, $2, $3)`, [
        userId,
        this.crypto.keyedHash('recovery-code', code),
        this.clock.now(),
      ]);
    }
    return codes;
  }
}
