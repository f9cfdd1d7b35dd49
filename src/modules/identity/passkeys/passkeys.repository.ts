import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import { PoolQueries } from '@/core/database/pool-queries';
import type { Tx } from '@/core/database/transaction';

export interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  name: string;
  device_type: 'single_device' | 'multi_device';
  backed_up: boolean;
  transports: string[];
  created_at: Date;
  last_used_at: Date | null;
  disabled_at: Date | null;
}

export type ChallengePurpose = 'registration' | 'sign_in' | 'step_up' | 'two_factor';

export interface ChallengeRow {
  id: string;
  purpose: ChallengePurpose;
  challenge: string;
  user_id: string | null;
  binding: string | null;
  expires_at: Date;
}

const COLUMNS =
  'id, user_id, credential_id, public_key, counter, name, device_type, backed_up, transports, created_at, last_used_at, disabled_at';

const PASSKEY_COLUMNS_OF_P = COLUMNS.split(', ')
  .map((c) => `p.${c}`)
  .join(', ');

/** The challenge's columns in `takeChallengeWithPasskey`'s row (prefixed: the passkey's share their names). */
interface TakenChallengeColumns {
  c_id: string | null;
  c_purpose: ChallengePurpose;
  c_challenge: string;
  c_user_id: string | null;
  c_binding: string | null;
  c_expires_at: Date;
}

/**
 * Passkeys and their one-time challenges. No rule here: the services decide. The two statements of every passkey
 * sign-in (the challenge taken with the passkey read, the use recorded) go to the driver's pool as named statements
 * (`PoolQueries`: parsed and planned once per connection, no TypeORM query runner per call).
 */
@Injectable()
export class PasskeysRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pool: PoolQueries,
  ) {}

  listOf(userId: string, tx?: Tx): Promise<PasskeyRow[]> {
    return db(this.dataSource, tx).query<PasskeyRow[]>(
      `SELECT ${COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  /** The person's passkeys, locked: registrations of one person are counted one at a time. */
  async lockUser(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('passkeys:' || $1::text, 0))`, [userId]);
  }

  async findOwn(id: string, userId: string, tx?: Tx): Promise<PasskeyRow | null> {
    const rows = await db(this.dataSource, tx).query<PasskeyRow[]>(
      `SELECT ${COLUMNS} FROM passkeys WHERE id = $1 AND user_id = $2`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  async findByCredentialId(credentialId: string): Promise<PasskeyRow | null> {
    const rows = await this.dataSource.query<PasskeyRow[]>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1`, [
      credentialId,
    ]);
    return rows[0] ?? null;
  }

  /** Inserts a passkey; null when its credential id is already registered (by anyone). */
  async insert(
    values: {
      userId: string;
      credentialId: string;
      publicKey: Uint8Array;
      counter: number;
      name: string;
      deviceType: 'single_device' | 'multi_device';
      backedUp: boolean;
      transports: readonly string[];
      aaguid: string | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<PasskeyRow | null> {
    const rows = await tx.manager.query<PasskeyRow[]>(
      `INSERT INTO passkeys (user_id, credential_id, public_key, counter, name, device_type, backed_up, transports,
                             aaguid, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        values.userId,
        values.credentialId,
        Buffer.from(values.publicKey),
        values.counter,
        values.name,
        values.deviceType,
        values.backedUp,
        values.transports,
        values.aaguid,
        values.now,
      ],
    );
    return rows[0] ?? null;
  }

  async rename(id: string, userId: string, name: string): Promise<PasskeyRow | null> {
    const [rows] = await this.dataSource.query<[PasskeyRow[], number]>(
      `UPDATE passkeys SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
      [id, userId, name],
    );
    return rows[0] ?? null;
  }

  async delete(id: string, userId: string, tx: Tx): Promise<PasskeyRow | null> {
    const [rows] = await tx.manager.query<[PasskeyRow[], number]>(
      `DELETE FROM passkeys WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  /**
   * Records a use: the new counter and the time, only while the stored counter is still the one the check read (a
   * concurrent use of the same answer loses). False when another request moved it first.
   */
  async recordUse(id: string, expectedCounter: string, newCounter: number, now: Date): Promise<boolean> {
    const updated = await this.pool.query<{ id: string }>(
      'passkeys.record_use',
      `UPDATE passkeys SET counter = $3, last_used_at = $4
       WHERE id = $1 AND counter = $2 AND disabled_at IS NULL RETURNING id`,
      [id, expectedCounter, newCounter, now],
    );
    return updated.length === 1;
  }

  /** Disables a passkey whose counter went back (a cloned authenticator); false when it already was. */
  async disable(id: string, reason: 'clone_detected', now: Date, tx: Tx): Promise<boolean> {
    const [, updated] = await tx.manager.query<[unknown[], number]>(
      `UPDATE passkeys SET disabled_at = $2, disabled_reason = $3 WHERE id = $1 AND disabled_at IS NULL`,
      [id, now, reason],
    );
    return updated === 1;
  }

  /** Stores a challenge, and drops the ones that expired more than an hour ago (they can only be refused). */
  async createChallenge(values: {
    purpose: ChallengePurpose;
    challenge: string;
    userId: string | null;
    binding: string | null;
    now: Date;
    expiresAt: Date;
  }): Promise<string> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `WITH swept AS (
         DELETE FROM passkey_challenges
         WHERE id IN (SELECT id FROM passkey_challenges WHERE expires_at < $5::timestamptz - interval '1 hour' LIMIT 100)
       )
       INSERT INTO passkey_challenges (purpose, challenge, user_id, binding, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [values.purpose, values.challenge, values.userId, values.binding, values.now, values.expiresAt],
    );
    return rows[0].id;
  }

  /**
   * Takes (deletes) a challenge by id (single use, whatever the outcome) and reads the passkey of `credentialId` in
   * the same statement: one round trip for the passwordless sign-in.
   */
  async takeChallengeWithPasskey(
    id: string,
    purpose: ChallengePurpose,
    credentialId: string,
  ): Promise<{ challenge: ChallengeRow | null; passkey: PasskeyRow | null }> {
    const rows = await this.pool.query<PasskeyRow & TakenChallengeColumns>(
      'passkeys.take_challenge_with_passkey',
      `WITH taken AS (
         DELETE FROM passkey_challenges WHERE id = $1 AND purpose = $2
         RETURNING id, purpose, challenge, user_id, binding, expires_at
       )
       SELECT t.id AS c_id, t.purpose AS c_purpose, t.challenge AS c_challenge, t.user_id AS c_user_id,
              t.binding AS c_binding, t.expires_at AS c_expires_at, ${PASSKEY_COLUMNS_OF_P}
       FROM (VALUES (1)) AS one (x)
       LEFT JOIN taken t ON true
       LEFT JOIN passkeys p ON p.credential_id = $3`,
      [id, purpose, credentialId],
    );
    const row = rows[0];
    const challenge: ChallengeRow | null =
      !row || row.c_id === null
        ? null
        : {
            id: row.c_id,
            purpose: row.c_purpose,
            challenge: row.c_challenge,
            user_id: row.c_user_id,
            binding: row.c_binding,
            expires_at: row.c_expires_at,
          };
    if (!row || row.id === null) return { challenge, passkey: null };
    const passkey: PasskeyRow = {
      id: row.id,
      user_id: row.user_id,
      credential_id: row.credential_id,
      public_key: row.public_key,
      counter: row.counter,
      name: row.name,
      device_type: row.device_type,
      backed_up: row.backed_up,
      transports: row.transports,
      created_at: row.created_at,
      last_used_at: row.last_used_at,
      disabled_at: row.disabled_at,
    };
    return { challenge, passkey };
  }

  /** Takes (deletes) a challenge by its value, for the person and binding it was issued to. */
  async takeChallenge(
    challenge: string,
    purpose: ChallengePurpose,
    userId: string | null,
    binding: string | null,
  ): Promise<ChallengeRow | null> {
    const [rows] = await this.dataSource.query<[ChallengeRow[], number]>(
      `DELETE FROM passkey_challenges
       WHERE challenge = $1 AND purpose = $2 AND user_id IS NOT DISTINCT FROM $3::uuid
         AND binding IS NOT DISTINCT FROM $4::text
       RETURNING id, purpose, challenge, user_id, binding, expires_at`,
      [challenge, purpose, userId, binding],
    );
    return rows[0] ?? null;
  }
}
