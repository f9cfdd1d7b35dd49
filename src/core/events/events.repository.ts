import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';

export interface EventRow {
  id: string;
  name: string;
  version: number;
  organization_id: string | null;
  actor_id: string | null;
  occurred_at: Date;
  payload: Record<string, unknown>;
}

export interface ClaimedDelivery {
  event_id: string;
  subscriber: string;
  attempts: number;
}

export interface DeliveryStatusRow {
  subscriber: string;
  status: 'pending' | 'done' | 'failed';
  attempts: number;
  last_error: string | null;
}

/**
 * The event log and its deliveries: `domain_events` holds each fact's event (written in the fact's transaction),
 * `domain_event_deliveries` one row per (event, subscriber), the outbox the dispatcher works from.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Writes events of one name and one delivery row per (event, subscriber), in one statement whatever the count
   * (a single event is the common case: one round trip in the fact's transaction).
   */
  async insert(events: readonly EventRow[], subscribers: readonly string[], runAfter: Date, tx: Tx): Promise<void> {
    if (events.length === 0) return;
    await tx.manager.query(
      `WITH e AS (
         INSERT INTO domain_events (id, name, version, organization_id, actor_id, occurred_at, payload)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::uuid[], $6::timestamptz[], $7::jsonb[])
         RETURNING id)
       INSERT INTO domain_event_deliveries (event_id, subscriber, run_after)
       SELECT e.id, s, $9 FROM e CROSS JOIN unnest($8::text[]) AS s`,
      [
        events.map((e) => e.id),
        events.map((e) => e.name),
        events.map((e) => e.version),
        events.map((e) => e.organization_id),
        events.map((e) => e.actor_id),
        events.map((e) => e.occurred_at),
        events.map((e) => JSON.stringify(e.payload)),
        subscribers,
        runAfter,
      ],
    );
  }

  /**
   * `insert` of one event as data-modifying CTEs (`published_event`, `published_deliveries`) for another owner's
   * statement in the fact's transaction: the event and its delivery rows are written by that statement, only when
   * `when` (a condition of that statement) holds. Parameters numbered from `$<firstParam>`.
   */
  insertCte(
    event: EventRow,
    subscribers: readonly string[],
    runAfter: Date,
    firstParam: number,
    when: string,
  ): { sql: string; params: unknown[] } {
    const p = (i: number): string => `$${firstParam + i}`;
    return {
      sql: `published_event AS (
        INSERT INTO domain_events (id, name, version, organization_id, actor_id, occurred_at, payload)
        SELECT ${p(0)}::uuid, ${p(1)}::text, ${p(2)}::int, ${p(3)}::uuid, ${p(4)}::uuid, ${p(5)}::timestamptz,
          ${p(6)}::jsonb WHERE ${when}
        RETURNING id),
      published_deliveries AS (
        INSERT INTO domain_event_deliveries (event_id, subscriber, run_after)
        SELECT published_event.id, s, ${p(8)}::timestamptz FROM published_event CROSS JOIN unnest(${p(7)}::text[]) AS s)`,
      params: [
        event.id,
        event.name,
        event.version,
        event.organization_id,
        event.actor_id,
        event.occurred_at,
        JSON.stringify(event.payload),
        subscribers,
        runAfter,
      ],
    };
  }

  /**
   * Takes up to `limit` due deliveries for one try: counts the attempt and leases them until `leaseUntil`, so a
   * process that dies mid-delivery only delays them. SKIP LOCKED lets any number of workers claim side by side.
   */
  async claim(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    const [rows] = await this.dataSource.query<[ClaimedDelivery[], number]>(
      // The rows are locked by the sub-select, so their physical addresses hold until this statement updates them:
      // a TID scan, where a join on the key made the planner scan the whole table once it held many deliveries.
      `UPDATE domain_event_deliveries d SET locked_until = $2, attempts = d.attempts + 1
       WHERE d.ctid = ANY(ARRAY(
         SELECT ctid FROM domain_event_deliveries
         WHERE status = 'pending' AND run_after <= $1 AND (locked_until IS NULL OR locked_until <= $1)
         ORDER BY run_after
         LIMIT $3
         FOR UPDATE SKIP LOCKED
       ))
       RETURNING d.event_id, d.subscriber, d.attempts`,
      [now, leaseUntil, limit],
    );
    return rows;
  }

  async findEvents(ids: readonly string[]): Promise<EventRow[]> {
    return await this.dataSource.query<EventRow[]>(
      `SELECT id, name, version, organization_id, actor_id, occurred_at, payload FROM domain_events
       WHERE id = ANY($1::uuid[])`,
      [ids],
    );
  }

  /**
   * Records, inside the subscriber's transaction, that these deliveries happened. Returns the ids that were still
   * pending: the others were applied already (a redelivery) and must not be applied again.
   */
  async markDone(subscriber: string, eventIds: readonly string[], now: Date, tx: Tx): Promise<string[]> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [rows] = await tx.manager.query<[{ event_id: string }[], number]>(
      `UPDATE domain_event_deliveries SET status = 'done', done_at = $3, locked_until = NULL, last_error = NULL
       WHERE subscriber = $1 AND event_id = ANY($2::uuid[]) AND status = 'pending'
       RETURNING event_id`,
      [subscriber, eventIds, now],
    );
    return rows.map((r) => r.event_id);
  }

  /** A failed try: retry at `retryAt`, or give up (`failed`) when it was the last. */
  async markFailed(subscriber: string, eventId: string, error: string, retryAt: Date | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE domain_event_deliveries
       SET status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
           run_after = COALESCE($4, run_after), locked_until = NULL, last_error = $3
       WHERE subscriber = $1 AND event_id = $2 AND status = 'pending'`,
      [subscriber, eventId, error.slice(0, 2000), retryAt],
    );
  }

  /** Gives claimed deliveries back at once (used when a batch is split into single deliveries). */
  async release(subscriber: string, eventIds: readonly string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE domain_event_deliveries SET locked_until = NULL
       WHERE subscriber = $1 AND event_id = ANY($2::uuid[]) AND status = 'pending'`,
      [subscriber, eventIds],
    );
  }

  async deliveriesOf(eventId: string): Promise<DeliveryStatusRow[]> {
    return await this.dataSource.query<DeliveryStatusRow[]>(
      `SELECT subscriber, status, attempts, last_error FROM domain_event_deliveries WHERE event_id = $1
       ORDER BY subscriber`,
      [eventId],
    );
  }

  /** How many deliveries are waiting (for metrics and tests). */
  async pendingCount(tx?: Tx): Promise<number> {
    const rows = await db(this.dataSource, tx).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM domain_event_deliveries WHERE status = 'pending'`,
    );
    return rows[0].n;
  }

  /** Deletes events (with their deliveries) older than the cutoff whose deliveries are all finished. */
  async prune(before: Date, limit: number): Promise<number> {
    // TypeORM answers a DELETE with [rows, affected count].
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM domain_events WHERE id IN (
         SELECT e.id FROM domain_events e
         WHERE e.occurred_at < $1
           AND NOT EXISTS (SELECT 1 FROM domain_event_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
         LIMIT $2)`,
      [before, limit],
    );
    return count;
  }
}
