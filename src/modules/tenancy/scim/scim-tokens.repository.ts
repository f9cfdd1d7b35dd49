import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SharedCache } from '@/core/cache/cache';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ScimTokenRow {
  id: string;
  organization_id: string;
  description: string;
  default_role: 'student' | 'teacher';
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface ScimActivityRow {
  at: Date;
  method: string;
  path: string;
  status: number;
  detail: string | null;
}

const COLUMNS = 'id, organization_id, description, default_role, created_by, created_at, last_used_at, revoked_at';
export const ACTIVITY_KEPT = 500;

/** SCIM tokens (by fingerprint, cached across instances; revoking invalidates everywhere) and the activity log. */
@Injectable()
export class ScimTokensRepository {
  private readonly byHash: SharedCache<ScimTokenRow>;
  private inserted = 0;

  constructor(
    private readonly dataSource: DataSource,
    bus: InvalidationBus,
  ) {
    this.byHash = new SharedCache<ScimTokenRow>('scim_token', bus, { max: 10_000, ttlMs: 60_000 });
  }

  async insert(
    values: { organizationId: string; description: string; defaultRole: string; tokenHash: string; createdBy: string },
    now: Date,
    tx: Tx,
  ): Promise<ScimTokenRow> {
    const rows = await tx.manager.query<ScimTokenRow[]>(
      `INSERT INTO scim_tokens (organization_id, description, default_role, token_hash, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [values.organizationId, values.description, values.defaultRole, values.tokenHash, values.createdBy, now],
    );
    return rows[0];
  }

  /** Live tokens of the organization, newest first (served by scim_tokens_org_live_idx). */
  listLive(organizationId: string, tx?: Tx): Promise<ScimTokenRow[]> {
    return db(this.dataSource, tx).query<ScimTokenRow[]>(
      `SELECT ${COLUMNS} FROM scim_tokens WHERE ${orgEq(1)} AND revoked_at IS NULL ORDER BY created_at DESC`,
      [organizationId],
    );
  }

  /** Serializes token creation per organization (the limit of 5 holds under concurrent requests). */
  async lockOrganization(organizationId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('scim_tokens:' || $1, 0))`, [organizationId]);
  }

  findByHash(tokenHash: string): Promise<ScimTokenRow | null> {
    return this.byHash.getOrLoad(tokenHash, async () => {
      const rows = await this.dataSource.query<ScimTokenRow[]>(
        `${tenancyExempt('sign-in-lookup')} SELECT ${COLUMNS} FROM scim_tokens WHERE token_hash = $1`,
        [tokenHash],
      );
      return rows[0] ?? null;
    });
  }

  async revoke(organizationId: string, id: string, now: Date, tx: Tx): Promise<ScimTokenRow | null> {
    const [rows] = await tx.manager.query<[(ScimTokenRow & { token_hash: string })[], number]>(
      `UPDATE scim_tokens SET revoked_at = $3 WHERE ${orgEq(1)} AND id = $2 AND revoked_at IS NULL
       RETURNING ${COLUMNS}, token_hash`,
      [organizationId, id, now],
    );
    const row = rows[0];
    if (row) await this.byHash.invalidate(row.token_hash, tx);
    return row ?? null;
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('sign-in-lookup')} UPDATE scim_tokens SET last_used_at = $2
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now],
    );
  }

  /** Records one request; every 50 inserts of this process, trims the organization's log to its last 500. */
  async recordActivity(organizationId: string, tokenId: string | null, entry: ScimActivityRow): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO scim_activity (organization_id, token_id, at, method, path, status, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [organizationId, tokenId, entry.at, entry.method, entry.path, entry.status, entry.detail],
    );
    if (++this.inserted % 50 === 0) {
      await this.dataSource.query(
        `DELETE FROM scim_activity WHERE ${orgEq(1)} AND id < (
           SELECT min(id) FROM (SELECT id FROM scim_activity WHERE ${orgEq(1)} ORDER BY id DESC LIMIT $2) k)`,
        [organizationId, ACTIVITY_KEPT],
      );
    }
  }

  listActivity(organizationId: string): Promise<ScimActivityRow[]> {
    return this.dataSource.query<ScimActivityRow[]>(
      `SELECT at, method, path, status, detail FROM scim_activity WHERE ${orgEq(1)}
       ORDER BY id DESC LIMIT $2`,
      [organizationId, ACTIVITY_KEPT],
    );
  }
}
