import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';

export type IdentityProvider = 'google' | 'microsoft' | 'sso';

/** Links between an external identity (issuer + subject) and an account; one account per identity. */
@Injectable()
export class ExternalIdentitiesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findUserId(issuer: string, subject: string, tx?: Tx): Promise<string | null> {
    const rows = await db(this.dataSource, tx).query<{ user_id: string }[]>(
      `SELECT user_id FROM external_identities WHERE issuer = $1 AND subject = $2`,
      [issuer, subject],
    );
    return rows[0]?.user_id ?? null;
  }

  /** Links the identity unless it already is; returns the account it is linked to (this one or the earlier one). */
  async link(
    values: {
      userId: string;
      issuer: string;
      subject: string;
      provider: IdentityProvider;
      connectionId: string | null;
    },
    now: Date,
    tx?: Tx,
  ): Promise<string> {
    const manager = db(this.dataSource, tx);
    await manager.query(
      `INSERT INTO external_identities (user_id, issuer, subject, provider, connection_id, created_at, last_used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (issuer, subject) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`,
      [values.userId, values.issuer, values.subject, values.provider, values.connectionId, now],
    );
    return (await this.findUserId(values.issuer, values.subject, tx)) ?? values.userId;
  }
}
