import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import { PoolQueries } from '@/core/database/pool-queries';
import { SharedCache } from '@/core/cache/cache';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import type { Tx } from '@/core/database/transaction';

export interface SessionRow {
  id: string;
  user_id: string;
  device: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  impersonator_id: string | null;
  impersonation_expires_at: Date | null;
}

const COLUMNS =
  'id, user_id, device, created_at, last_seen_at, expires_at, revoked_at, impersonator_id, impersonation_expires_at';

/** Sessions by id are cached across instances (read on every request); every change here invalidates. */
@Injectable()
export class SessionsRepository {
  private readonly cache: SharedCache<SessionRow>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly pool: PoolQueries,
    bus: InvalidationBus,
  ) {
    this.cache = new SharedCache<SessionRow>('session', bus, { max: 100_000, ttlMs: 60_000 });
  }

  /**
   * Opens a session and stores its first refresh token (SHA-256) in one statement: one round trip per sign-in;
   * outside a transaction, a named statement on the driver's pool (`PoolQueries`), as every sign-in sends it. Only
   * the new id comes back: the rest of the row is what was written (no timestamps parsed back per sign-in).
   */
  async createWithRefreshToken(
    values: {
      userId: string;
      device: string;
      ipFingerprint: string | null;
      now: Date;
      expiresAt: Date;
      impersonatorId?: string | null;
      impersonationExpiresAt?: Date | null;
    },
    refresh: { tokenHash: string; expiresAt: Date },
    tx?: Tx,
  ): Promise<SessionRow> {
    const text = `WITH s AS (
         INSERT INTO sessions (user_id, device, ip_fingerprint, created_at, last_seen_at, expires_at, impersonator_id, impersonation_expires_at)
         VALUES ($1, $2, $3, $4, $4, $5, $6, $7) RETURNING id
       ), r AS (
         INSERT INTO refresh_tokens (session_id, token_hash, created_at, expires_at) SELECT s.id, $8, $4, $9 FROM s
       )
       SELECT id FROM s`;
    const parameters = [
      values.userId,
      values.device,
      values.ipFingerprint,
      values.now,
      values.expiresAt,
      values.impersonatorId ?? null,
      values.impersonationExpiresAt ?? null,
      refresh.tokenHash,
      refresh.expiresAt,
    ];
    const rows = tx
      ? await db(this.dataSource, tx).query<{ id: string }[]>(text, parameters)
      : await this.pool.query<{ id: string }>('sessions.create_with_refresh_token', text, parameters);
    return {
      id: rows[0].id,
      user_id: values.userId,
      device: values.device,
      created_at: values.now,
      last_seen_at: values.now,
      expires_at: values.expiresAt,
      revoked_at: null,
      impersonator_id: values.impersonatorId ?? null,
      impersonation_expires_at: values.impersonationExpiresAt ?? null,
    };
  }

  async addRefreshToken(sessionId: string, tokenHash: string, now: Date, expiresAt: Date, tx?: Tx): Promise<void> {
    await db(this.dataSource, tx).query(
      `INSERT INTO refresh_tokens (session_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
      [sessionId, tokenHash, now, expiresAt],
    );
  }

  /** Marks a current refresh token rotated; returns its session when this call won the rotation. */
  async rotate(tokenHash: string, now: Date, tx: Tx): Promise<string | null> {
    const [rows] = await tx.manager.query<[{ session_id: string }[], number]>(
      `UPDATE refresh_tokens SET rotated_at = $2 WHERE token_hash = $1 AND rotated_at IS NULL AND expires_at > $2 RETURNING session_id`,
      [tokenHash, now],
    );
    return rows[0]?.session_id ?? null;
  }

  /** Retires every current refresh token of the session (its cookies are being re-issued). */
  async rotateAll(sessionId: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(`UPDATE refresh_tokens SET rotated_at = $2 WHERE session_id = $1 AND rotated_at IS NULL`, [
      sessionId,
      now,
    ]);
  }

  async findToken(tokenHash: string): Promise<{ session_id: string; rotated_at: Date | null } | null> {
    const rows = await this.dataSource.query<{ session_id: string; rotated_at: Date | null }[]>(
      `SELECT session_id, rotated_at FROM refresh_tokens WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async findById(id: string, tx?: Tx): Promise<SessionRow | null> {
    const load = async (): Promise<SessionRow | null> =>
      (await db(this.dataSource, tx).query<SessionRow[]>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1`, [id]))[0] ??
      null;
    return tx ? load() : this.cache.getOrLoad(id, load);
  }

  async touch(sessionId: string, now: Date, expiresAt: Date, tx?: Tx): Promise<void> {
    await db(this.dataSource, tx).query(`UPDATE sessions SET last_seen_at = $2, expires_at = $3 WHERE id = $1`, [
      sessionId,
      now,
      expiresAt,
    ]);
    await this.cache.invalidate(sessionId, tx);
  }

  async listLive(userId: string, now: Date): Promise<SessionRow[]> {
    return this.dataSource.query<SessionRow[]>(
      `SELECT ${COLUMNS} FROM sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2
         AND (impersonation_expires_at IS NULL OR impersonation_expires_at > $2)
       ORDER BY last_seen_at DESC`,
      [userId, now],
    );
  }

  /** Revokes one live session of this person; false when there is none (not theirs, or already revoked). */
  async revoke(sessionId: string, userId: string, reason: string, now: Date, tx?: Tx): Promise<boolean> {
    const [, count] = await db(this.dataSource, tx).query<[unknown[], number]>(
      `UPDATE sessions SET revoked_at = $3, revoked_reason = $4 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
      [sessionId, userId, now, reason],
    );
    await this.cache.invalidate(sessionId, tx);
    return count === 1;
  }

  async revokeAllExcept(
    userId: string,
    keepSessionId: string | null,
    reason: string,
    now: Date,
    tx?: Tx,
  ): Promise<number> {
    const [rows] = await db(this.dataSource, tx).query<[{ id: string }[], number]>(
      `UPDATE sessions SET revoked_at = $3, revoked_reason = $4
       WHERE user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id <> $2::uuid) AND expires_at > $3
       RETURNING id`,
      [userId, keepSessionId, now, reason],
    );
    for (const { id } of rows) await this.cache.invalidate(id, tx);
    return rows.length;
  }
}
