import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import { SharedCache } from '@/core/cache/cache';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ApiKeyRow {
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  prefix: string;
  access: 'read' | 'write';
  created_at: Date;
  expires_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, user_id, organization_id, name, prefix, access, created_at, expires_at, last_used_at, revoked_at';

/** Personal tokens by fingerprint are cached across instances; revoking invalidates everywhere at once. */
@Injectable()
export class ApiKeysRepository {
  private readonly byHash: SharedCache<ApiKeyRow>;

  constructor(
    private readonly dataSource: DataSource,
    bus: InvalidationBus,
  ) {
    this.byHash = new SharedCache<ApiKeyRow>('api_key', bus, { max: 50_000, ttlMs: 60_000 });
  }

  async insert(
    values: {
      userId: string;
      organizationId: string;
      name: string;
      prefix: string;
      tokenHash: string;
      access: string;
      now: Date;
      expiresAt: Date;
    },
    tx?: Tx,
  ): Promise<ApiKeyRow> {
    const rows = await db(this.dataSource, tx).query<ApiKeyRow[]>(
      `INSERT INTO api_keys (user_id, organization_id, name, prefix, token_hash, access, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        values.userId,
        values.organizationId,
        values.name,
        values.prefix,
        values.tokenHash,
        values.access,
        values.now,
        values.expiresAt,
      ],
    );
    return rows[0];
  }

  findByHash(tokenHash: string): Promise<ApiKeyRow | null> {
    return this.byHash.getOrLoad(tokenHash, async () => {
      const rows = await this.dataSource.query<ApiKeyRow[]>(
        `${tenancyExempt('sign-in-lookup')} SELECT ${COLUMNS} FROM api_keys WHERE token_hash = $1`,
        [tokenHash],
      );
      return rows[0] ?? null;
    });
  }

  listLive(userId: string): Promise<ApiKeyRow[]> {
    return this.dataSource.query<ApiKeyRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT ${COLUMNS} FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC`,
      [userId],
    );
  }

  /** Revokes one of this person's tokens; returns it, or null when there is none. */
  async revoke(id: string, userId: string, now: Date, tx?: Tx): Promise<ApiKeyRow | null> {
    const [rows] = await db(this.dataSource, tx).query<[(ApiKeyRow & { token_hash: string })[], number]>(
      `${tenancyExempt('person-across-organizations')} UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}, token_hash`,
      [id, userId, now],
    );
    const row = rows[0];
    if (row) await this.byHash.invalidate(row.token_hash, tx);
    return row ?? null;
  }

  /** Revokes every live token of this person in this organization (they left it); returns how many. */
  async revokeAllFor(organizationId: string, userId: string, now: Date, tx?: Tx): Promise<number> {
    const [rows] = await db(this.dataSource, tx).query<[{ token_hash: string }[], number]>(
      `UPDATE api_keys SET revoked_at = $3 WHERE ${orgEq(1)} AND user_id = $2 AND revoked_at IS NULL RETURNING token_hash`,
      [organizationId, userId, now],
    );
    for (const row of rows) await this.byHash.invalidate(row.token_hash, tx);
    return rows.length;
  }

  /** Records use at most once a minute per token (a write per request would cost more than it tells). */
  async touch(id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('sign-in-lookup')} UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now],
    );
  }
}
