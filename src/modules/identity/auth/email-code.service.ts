import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import type { Tx } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { FAILED_ATTEMPTS_ACCOUNT } from './auth.limits';
import { EmailCodesRepository } from './email-codes.repository';

export type CodePurpose = 'sign_in' | 'step_up' | 'email_change' | 'invitation';

export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_ATTEMPTS = 5;

/**
 * Six-digit email codes for sign-in, step-up, email change and invitations: 10 minutes, 5 attempts, a new code
 * voids the previous one (one row per purpose and subject), stored as a keyed hash bound to purpose and subject,
 * compared in constant time, single use. Every failure looks the same to the caller.
 */
@Injectable()
export class EmailCodeService {
  constructor(
    private readonly codes: EmailCodesRepository,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly limits: RateLimitService,
  ) {}

  async issue(
    purpose: CodePurpose,
    subject: string,
    metadata: Record<string, string> = {},
    tx?: Tx,
  ): Promise<{ code: string; expiresAt: Date }> {
    const code = this.crypto.randomDigits(6);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
    await this.codes.upsert(
      { purpose, subject, codeHash: this.hash(purpose, subject, code), expiresAt, metadata, now },
      tx,
    );
    return { code, expiresAt };
  }

  /** The code's metadata when it is right, current, not used and not exhausted; otherwise null (one failure for all). */
  async consume(purpose: CodePurpose, subject: string, code: string): Promise<Record<string, string> | null> {
    const now = this.clock.now();
    const given = this.hash(purpose, subject, code);
    const row = await this.codes.find(purpose, subject);
    // Compare even without a row, so a missing code costs the same as a wrong one.
    const matches = this.crypto.safeEqual(given, row?.code_hash ?? given.replace(/./g, '0'));
    if (
      !row ||
      row.used_at !== null ||
      row.expires_at.getTime() <= now.getTime() ||
      row.attempts >= CODE_MAX_ATTEMPTS
    ) {
      return null;
    }
    if (!matches) {
      await this.codes.countAttempt(row.id);
      return null;
    }
    return this.codes.use(row.id, now, CODE_MAX_ATTEMPTS);
  }

  /**
   * `consume` for an operation: the metadata, or 400 `invalid_otp` after counting a failed attempt against the
   * account `accountEmail` (the per-account limit shared by every way of proving an address).
   */
  async verify(
    purpose: CodePurpose,
    subject: string,
    code: string,
    accountEmail: string,
  ): Promise<Record<string, string>> {
    const metadata = await this.consume(purpose, subject, code);
    if (!metadata) {
      await this.limits.consume(FAILED_ATTEMPTS_ACCOUNT, accountEmail);
      throw ApiError.badRequest('invalid_otp', 'The code is not valid or has expired.');
    }
    return metadata;
  }

  /** Deletes the codes of these subjects (an erasure: the invitations of an erased address, for one). */
  async discard(purpose: CodePurpose, subjects: readonly string[], tx: Tx): Promise<void> {
    if (subjects.length === 0) return;
    await this.codes.deleteSubjects(purpose, subjects, tx);
  }

  private hash(purpose: CodePurpose, subject: string, code: string): string {
    return this.crypto.keyedHash('email-code', `${purpose}:${subject}:${code}`);
  }
}
