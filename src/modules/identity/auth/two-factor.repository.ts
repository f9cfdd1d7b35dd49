import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';

/** What a sign-in challenge carries to the step after it (an accepted invitation's organization, for instance). */
export interface ChallengeContext {
  organizationId?: string;
}

export interface ChallengeRow {
  id: string;
  user_id: string;
  attempts: number;
  expires_at: Date;
  used_at: Date | null;
  context: ChallengeContext;
}

/** Recovery codes (stored as keyed hashes) and the single-use two-factor sign-in challenges. */
@Injectable()
export class TwoFactorRepository {
  constructor(private readonly dataSource: DataSource) {}

  async countUnusedRecoveryCodes(userId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL`,
      [userId],
    );
    return row?.n ?? 0;
  }

  /** Replaces the person's recovery codes with these hashes (none: they are only deleted). */
  async replaceRecoveryCodes(userId: string, codeHashes: readonly string[], now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId]);
    for (const hash of codeHashes) {
      await tx.manager.query(`INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES ($1, $2, $3)`, [
        userId,
        hash,
        now,
      ]);
    }
  }

  /** Spends one unused recovery code with this hash; false when there is none (wrong, or already used). */
  async spendRecoveryCode(userId: string, codeHash: string, now: Date): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE recovery_codes SET used_at = $3 WHERE id = (
         SELECT id FROM recovery_codes WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL LIMIT 1)
       AND used_at IS NULL`,
      [userId, codeHash, now],
    );
    return count === 1;
  }

  async createChallenge(
    values: { userId: string; tokenHash: string; expiresAt: Date; context: ChallengeContext; now: Date },
    tx?: Tx,
  ): Promise<void> {
    await db(this.dataSource, tx).query(
      `INSERT INTO auth_challenges (user_id, kind, token_hash, expires_at, context, created_at) VALUES ($1, 'two_factor', $2, $3, $4, $5)`,
      [values.userId, values.tokenHash, values.expiresAt, JSON.stringify(values.context), values.now],
    );
  }

  async findChallenge(tokenHash: string): Promise<ChallengeRow | null> {
    const rows = await this.dataSource.query<ChallengeRow[]>(
      `SELECT id, user_id, attempts, expires_at, used_at, context FROM auth_challenges WHERE token_hash = $1 AND kind = 'two_factor'`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async countChallengeAttempt(challengeId: string): Promise<void> {
    await this.dataSource.query(`UPDATE auth_challenges SET attempts = attempts + 1 WHERE id = $1`, [challengeId]);
  }

  /** Marks the challenge used; false when another request used it first. */
  async useChallenge(challengeId: string, now: Date): Promise<boolean> {
    const [, used] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE auth_challenges SET used_at = $2 WHERE id = $1 AND used_at IS NULL`,
      [challengeId, now],
    );
    return used === 1;
  }
}
