import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { SuppressionReason } from './email-events';

export interface SuppressionRow {
  id: string;
  email_masked: string;
  reason: SuppressionReason;
  source_event_id: string | null;
  created_at: Date;
}

export interface SuppressionFilter {
  addressHash?: string;
  reason?: SuppressionReason;
}

const COLUMNS = 'id, email_masked, reason, source_event_id, created_at';

/** Email-provider event ids (replay refusal) and the suppression list. Platform data: no organization. */
@Injectable()
export class EmailWebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records an event id; false when it was already recorded (a replay). Inside the applying transaction, a
   * concurrent delivery of the same id waits on the unique key and then sees it.
   */
  async recordEvent(
    webhookId: string,
    eventType: string,
    outcome: 'processed' | 'ignored',
    now: Date,
    tx: Tx,
  ): Promise<boolean> {
    const rows = await tx.manager.query<{ webhook_id: string }[]>(
      `INSERT INTO email_webhook_events (webhook_id, event_type, outcome, received_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (webhook_id) DO NOTHING RETURNING webhook_id`,
      [webhookId, eventType, outcome, now],
    );
    return rows.length === 1;
  }

  /** Deletes up to `limit` ids received before `before`; the number deleted. */
  async pruneEvents(before: Date, limit: number): Promise<number> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM email_webhook_events WHERE webhook_id IN
         (SELECT webhook_id FROM email_webhook_events WHERE received_at < $1 LIMIT $2)`,
      [before, limit],
    );
    return count;
  }

  async reasonOf(addressHash: string): Promise<SuppressionReason | null> {
    const rows = await this.dataSource.query<{ reason: SuppressionReason }[]>(
      `SELECT reason FROM email_suppressions WHERE address_hash = $1`,
      [addressHash],
    );
    return rows[0]?.reason ?? null;
  }

  /** Inserts the entry unless the address has one; `created` says which. The existing entry is locked. */
  async insertOrLock(
    values: { addressHash: string; masked: string; reason: SuppressionReason; sourceEventId: string | null },
    now: Date,
    tx: Tx,
  ): Promise<{ row: SuppressionRow; created: boolean }> {
    const inserted = await tx.manager.query<SuppressionRow[]>(
      `INSERT INTO email_suppressions (address_hash, email_masked, reason, source_event_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (address_hash) DO NOTHING RETURNING ${COLUMNS}`,
      [values.addressHash, values.masked, values.reason, values.sourceEventId, now],
    );
    if (inserted[0]) return { row: inserted[0], created: true };
    const existing = await tx.manager.query<SuppressionRow[]>(
      `SELECT ${COLUMNS} FROM email_suppressions WHERE address_hash = $1 FOR UPDATE`,
      [values.addressHash],
    );
    return { row: existing[0], created: false };
  }

  async updateReason(
    id: string,
    reason: SuppressionReason,
    sourceEventId: string | null,
    now: Date,
    tx: Tx,
  ): Promise<SuppressionRow> {
    const rows = await tx.manager.query<[SuppressionRow[], number]>(
      `UPDATE email_suppressions SET reason = $2, source_event_id = $3, updated_at = $4 WHERE id = $1
       RETURNING ${COLUMNS}`,
      [id, reason, sourceEventId, now],
    );
    return rows[0][0];
  }

  async findById(id: string, tx?: Tx): Promise<SuppressionRow | null> {
    const rows = await db(this.dataSource, tx).query<SuppressionRow[]>(
      `SELECT ${COLUMNS} FROM email_suppressions WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async delete(id: string, tx: Tx): Promise<SuppressionRow | null> {
    const [rows] = await tx.manager.query<[SuppressionRow[], number]>(
      `DELETE FROM email_suppressions WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * A page, newest first: served by the unique hash index (`email`), `email_suppressions_reason_idx` (`reason`) and
   * `email_suppressions_created_idx` (no filter).
   */
  async list(
    filter: SuppressionFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: SuppressionRow[]; total: number }> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (filter.addressHash) {
      params.push(filter.addressHash);
      where.push(`address_hash = $${params.length}`);
    }
    if (filter.reason) {
      params.push(filter.reason);
      where.push(`reason = $${params.length}`);
    }
    const condition = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const [rows, count] = await Promise.all([
      this.dataSource.query<SuppressionRow[]>(
        `SELECT ${COLUMNS} FROM email_suppressions ${condition}
         ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM email_suppressions ${condition}`,
        params,
      ),
    ]);
    return { rows, total: count[0].total };
  }
}
