import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type StartKind = 'provider' | 'sso';

export interface StateRow {
  id: string;
  kind: StartKind;
  provider: 'google' | 'microsoft' | null;
  connection_id: string | null;
  nonce: string;
  code_verifier_encrypted: string;
  test: boolean;
  created_by: string | null;
}

/** Started provider and SSO sign-ins, by the SHA-256 of their state. */
@Injectable()
export class SignInStatesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(values: {
    stateHash: string;
    kind: StartKind;
    provider: 'google' | 'microsoft' | null;
    connectionId: string | null;
    nonce: string;
    codeVerifierEncrypted: string;
    test: boolean;
    createdBy: string | null;
    now: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO sign_in_states (state_hash, kind, provider, connection_id, nonce, code_verifier_encrypted, test,
         created_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        values.stateHash,
        values.kind,
        values.provider,
        values.connectionId,
        values.nonce,
        values.codeVerifierEncrypted,
        values.test,
        values.createdBy,
        values.now,
        values.expiresAt,
      ],
    );
  }

  /** Deletes up to 100 states that expired before `before` (keeps the table small without a scheduled job). */
  async pruneExpired(before: Date): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM sign_in_states WHERE id IN (SELECT id FROM sign_in_states WHERE expires_at < $1 LIMIT 100)`,
      [before],
    );
  }

  /** Marks the state used and returns it; null when unknown, used or expired (indistinguishable). */
  async consume(stateHash: string, kind: StartKind, now: Date): Promise<StateRow | null> {
    const [rows] = await this.dataSource.query<[StateRow[], number]>(
      `UPDATE sign_in_states SET used_at = $3
       WHERE state_hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3
       RETURNING id, kind, provider, connection_id, nonce, code_verifier_encrypted, test, created_by`,
      [stateHash, kind, now],
    );
    return rows[0] ?? null;
  }
}
