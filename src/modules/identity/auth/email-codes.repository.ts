import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';

export interface EmailCodeRow {
  id: string;
  code_hash: string;
  attempts: number;
  expires_at: Date;
  used_at: Date | null;
}

/** The one live code per purpose and subject (a new one replaces the previous). */
@Injectable()
export class EmailCodesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async upsert(
    values: {
      purpose: string;
      subject: string;
      codeHash: string;
      expiresAt: Date;
      metadata: Record<string, string>;
      now: Date;
    },
    tx?: Tx,
  ): Promise<void> {
    await db(this.dataSource, tx).query(
      `INSERT INTO email_codes (purpose, subject, code_hash, attempts, expires_at, used_at, metadata, created_at)
       VALUES ($1, $2, $3, 0, $4, NULL, $5, $6)
       ON CONFLICT (purpose, subject) DO UPDATE SET code_hash = EXCLUDED.code_hash, attempts = 0,
         expires_at = EXCLUDED.expires_at, used_at = NULL, metadata = EXCLUDED.metadata, created_at = EXCLUDED.created_at`,
      [values.purpose, values.subject, values.codeHash, values.expiresAt, JSON.stringify(values.metadata), values.now],
    );
  }

  async find(purpose: string, subject: string): Promise<EmailCodeRow | null> {
    const rows = await this.dataSource.query<EmailCodeRow[]>(
      `SELECT id, code_hash, attempts, expires_at, used_at FROM email_codes WHERE purpose = $1 AND subject = $2`,
      [purpose, subject],
    );
    return rows[0] ?? null;
  }

  async countAttempt(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE email_codes SET attempts = attempts + 1 WHERE id = $1`, [id]);
  }

  /**
   * Marks the code used and returns its metadata, when it is still unused, under `maxAttempts` and current.
   * Conditional: of concurrent verifications of one code, exactly one wins (the others get null).
   */
  async use(id: string, now: Date, maxAttempts: number): Promise<Record<string, string> | null> {
    const [used] = await this.dataSource.query<[{ metadata: Record<string, string> }[], number]>(
      `UPDATE email_codes SET used_at = $2
       WHERE id = $1 AND used_at IS NULL AND attempts < $3 AND expires_at > $2
       RETURNING metadata`,
      [id, now, maxAttempts],
    );
    return used[0]?.metadata ?? null;
  }

  async deleteSubjects(purpose: string, subjects: readonly string[], tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM email_codes WHERE purpose = $1 AND subject = ANY($2::text[])`, [
      purpose,
      subjects,
    ]);
  }
}
