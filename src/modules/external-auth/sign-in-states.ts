import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';

/** How long a started sign-in may take at the provider. */
export const SIGN_IN_STATE_TTL_SECONDS = 10 * 60;

export type StartKind = 'provider' | 'sso';

export interface StartedSignIn {
  /** Sent to the provider and kept in the HttpOnly state cookie; only its SHA-256 is stored. */
  state: string;
  nonce: string;
  codeChallenge: string;
}

export interface ConsumedSignIn {
  id: string;
  kind: StartKind;
  provider: 'google' | 'microsoft' | null;
  connectionId: string | null;
  nonce: string;
  codeVerifier: string;
  test: boolean;
  createdBy: string | null;
}

interface StateRow {
  id: string;
  kind: StartKind;
  provider: 'google' | 'microsoft' | null;
  connection_id: string | null;
  nonce: string;
  code_verifier_encrypted: string;
  test: boolean;
  created_by: string | null;
}

/**
 * The single-use `state` of a provider or SSO sign-in, with its nonce and the PKCE verifier (encrypted at
 * rest). A state is consumed atomically: unknown, used and expired states are indistinguishable.
 */
@Injectable()
export class SignInStates {
  constructor(
    private readonly dataSource: DataSource,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
  ) {}

  async start(values: {
    kind: StartKind;
    provider?: 'google' | 'microsoft';
    connectionId?: string;
    test?: boolean;
    createdBy?: string | null;
  }): Promise<StartedSignIn> {
    const state = this.crypto.randomToken(32);
    const nonce = this.crypto.randomToken(32);
    // RFC 7636: 32 random octets, base64url, give a 43-character verifier; the challenge is its SHA-256.
    const codeVerifier = this.crypto.randomToken(32);
    const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
    const now = this.clock.now();
    await this.dataSource.query(
      `INSERT INTO sign_in_states (state_hash, kind, provider, connection_id, nonce, code_verifier_encrypted, test,
         created_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        this.crypto.sha256(state),
        values.kind,
        values.provider ?? null,
        values.connectionId ?? null,
        nonce,
        this.crypto.encrypt(codeVerifier),
        values.test ?? false,
        values.createdBy ?? null,
        now,
        new Date(now.getTime() + SIGN_IN_STATE_TTL_SECONDS * 1000),
      ],
    );
    // Old starts are useless once expired; keep the table small without a scheduled job.
    await this.dataSource.query(
      `DELETE FROM sign_in_states WHERE id IN (SELECT id FROM sign_in_states WHERE expires_at < $1 LIMIT 100)`,
      [new Date(now.getTime() - 24 * 60 * 60 * 1000)],
    );
    return { state, nonce, codeChallenge };
  }

  /** Marks the state used and returns what the start kept; null when unknown, used or expired. */
  async consume(state: string, kind: StartKind): Promise<ConsumedSignIn | null> {
    const now = this.clock.now();
    const [rows] = await this.dataSource.query<[StateRow[], number]>(
      `UPDATE sign_in_states SET used_at = $3
       WHERE state_hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3
       RETURNING id, kind, provider, connection_id, nonce, code_verifier_encrypted, test, created_by`,
      [this.crypto.sha256(state), kind, now],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      kind: row.kind,
      provider: row.provider,
      connectionId: row.connection_id,
      nonce: row.nonce,
      codeVerifier: this.crypto.decrypt(row.code_verifier_encrypted),
      test: row.test,
      createdBy: row.created_by,
    };
  }
}
