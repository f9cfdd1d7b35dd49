import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { SignInStatesRepository, type StartKind } from './sign-in-states.repository';

export type { StartKind } from './sign-in-states.repository';

/** How long a started sign-in may take at the provider. */
export const SIGN_IN_STATE_TTL_SECONDS = 10 * 60;

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

/**
 * The single-use `state` of a provider or SSO sign-in, with its nonce and the PKCE verifier (encrypted at
 * rest). A state is consumed atomically: unknown, used and expired states are indistinguishable.
 */
@Injectable()
export class SignInStates {
  constructor(
    private readonly states: SignInStatesRepository,
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
    await this.states.insert({
      stateHash: this.crypto.sha256(state),
      kind: values.kind,
      provider: values.provider ?? null,
      connectionId: values.connectionId ?? null,
      nonce,
      codeVerifierEncrypted: this.crypto.encrypt(codeVerifier),
      test: values.test ?? false,
      createdBy: values.createdBy ?? null,
      now,
      expiresAt: new Date(now.getTime() + SIGN_IN_STATE_TTL_SECONDS * 1000),
    });
    // Old starts are useless once expired; keep the table small without a scheduled job.
    await this.states.pruneExpired(new Date(now.getTime() - 24 * 60 * 60 * 1000));
    return { state, nonce, codeChallenge };
  }

  /** Marks the state used and returns what the start kept; null when unknown, used or expired. */
  async consume(state: string, kind: StartKind): Promise<ConsumedSignIn | null> {
    const row = await this.states.consume(this.crypto.sha256(state), kind, this.clock.now());
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
