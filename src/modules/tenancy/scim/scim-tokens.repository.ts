import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
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
/** Activity lines are written together: at most this long after the request, or at once past this many. */
const ACTIVITY_FLUSH_MS = 200;
const ACTIVITY_BATCH = 200;

interface PendingActivity {
  organizationId: string;
  tokenId: string | null;
  entry: ScimActivityRow;
}

/** SCIM tokens (by fingerprint, cached across instances; revoking invalidates everywhere) and the activity log. */
@Injectable()
export class ScimTokensRepository implements BeforeApplicationShutdown {
  private readonly byHash: SharedCache<ScimTokenRow>;
  private readonly logger = new Logger('ScimActivity');
  private readonly pending: PendingActivity[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  /** The previous batch's write: batches are written in order. */
  private writing: Promise<void> = Promise.resolve();
  /** Lines written by this process per organization, modulo 50 (when to trim). */
  private readonly insertedByOrg = new Map<string, number>();

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

  /**
   * Records one request. Lines are written in batches (one INSERT for what arrived within `ACTIVITY_FLUSH_MS`, or
   * at once past `ACTIVITY_BATCH` lines): a sync's requests each cost no statement of their own. Reading the log
   * and stopping the process (before the database closes) write what is pending first. Every 50 lines of an organization written by this
   * process, its log is trimmed to the last 500.
   */
  recordActivity(organizationId: string, tokenId: string | null, entry: ScimActivityRow): Promise<void> {
    this.pending.push({ organizationId, tokenId, entry });
    if (this.pending.length >= ACTIVITY_BATCH) return this.flushActivity();
    this.flushTimer ??= setTimeout(() => void this.flushActivity().catch(() => undefined), ACTIVITY_FLUSH_MS);
    this.flushTimer.unref?.();
    return Promise.resolve();
  }

  /** Writes the pending activity lines (one statement), then trims the logs that grew by 50 lines. */
  async flushActivity(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.pending.splice(0);
    if (batch.length > 0) {
      this.writing = this.writing.then(() => this.writeActivity(batch));
    }
    await this.writing;
  }

  private async writeActivity(batch: PendingActivity[]): Promise<void> {
    try {
      await this.dataSource.query(
        `INSERT INTO scim_activity (organization_id, token_id, at, method, path, status, detail)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::text[], $5::text[], $6::int[], $7::text[])`,
        [
          batch.map((b) => b.organizationId),
          batch.map((b) => b.tokenId),
          batch.map((b) => b.entry.at),
          batch.map((b) => b.entry.method),
          batch.map((b) => b.entry.path),
          batch.map((b) => b.entry.status),
          batch.map((b) => b.entry.detail),
        ],
      );
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, lines: batch.length }, 'SCIM activity lines not written');
      return;
    }
    const grown = new Set<string>();
    for (const { organizationId } of batch) {
      const n = (this.insertedByOrg.get(organizationId) ?? 0) + 1;
      this.insertedByOrg.set(organizationId, n % 50);
      if (n % 50 === 0) grown.add(organizationId);
    }
    for (const organizationId of grown) {
      await this.dataSource
        .query(
          `DELETE FROM scim_activity WHERE ${orgEq(1)} AND id < (
             SELECT min(id) FROM (SELECT id FROM scim_activity WHERE ${orgEq(1)} ORDER BY id DESC LIMIT $2) k)`,
          [organizationId, ACTIVITY_KEPT],
        )
        .catch(() => undefined);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flushActivity();
  }

  async listActivity(organizationId: string): Promise<ScimActivityRow[]> {
    await this.flushActivity();
    return this.dataSource.query<ScimActivityRow[]>(
      `SELECT at, method, path, status, detail FROM scim_activity WHERE ${orgEq(1)}
       ORDER BY id DESC LIMIT $2`,
      [organizationId, ACTIVITY_KEPT],
    );
  }
}
