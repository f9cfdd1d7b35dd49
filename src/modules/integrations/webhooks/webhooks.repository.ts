import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { Locale } from '@/core/mail/mail-template';
import type { WebhookData } from './webhook-events';
import { orgAny, orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface EndpointRow {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabled_reason: 'failing' | 'gone' | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  secret_rotated_at: Date | null;
  failing_since: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRow {
  id: string;
  organization_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  occurred_at: Date;
  data: WebhookData;
  redelivery_of: string | null;
  status: DeliveryStatus;
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  response_ms: number | null;
  created_at: Date;
}

export interface NewDelivery {
  organizationId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  occurredAt: Date;
  data: WebhookData;
  redeliveryOf: string | null;
}

export interface AttemptOutcome {
  attempt: number;
  at: Date;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  statusCode: number | null;
  error: string | null;
  ms: number;
}

const ENDPOINT_COLUMNS = `id, organization_id, url, description, events, enabled, disabled_reason, secret_sealed,
  previous_secret_sealed, previous_secret_expires_at, secret_rotated_at, failing_since, created_by, created_at,
  updated_at`;
const DELIVERY_COLUMNS = `id, organization_id, endpoint_id, event_id, event_type, occurred_at, data, redelivery_of,
  status, attempts, last_attempt_at, next_attempt_at, last_status_code, last_error, response_ms, created_at`;

@Injectable()
export class WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Serializes endpoint creation per organization (the limit of 10). */
  async lockOrganization(organizationId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || $1))`, [organizationId]);
  }

  async count(organizationId: string, tx?: Tx): Promise<number> {
    const [row] = await db(this.dataSource, tx).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE ${orgEq(1)}`,
      [organizationId],
    );
    return row.n;
  }

  async insert(
    e: {
      organizationId: string;
      url: string;
      description: string | null;
      events: string[];
      enabled: boolean;
      secretSealed: string;
      createdBy: string;
      now: Date;
    },
    tx: Tx,
  ): Promise<EndpointRow> {
    const [row] = await tx.manager.query<EndpointRow[]>(
      `INSERT INTO webhook_endpoints (organization_id, url, description, events, enabled, secret_sealed, created_by,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${ENDPOINT_COLUMNS}`,
      [e.organizationId, e.url, e.description, e.events, e.enabled, e.secretSealed, e.createdBy, e.now],
    );
    return row;
  }

  async list(organizationId: string): Promise<EndpointRow[]> {
    return this.dataSource.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE ${orgEq(1)} ORDER BY created_at, id`,
      [organizationId],
    );
  }

  async find(organizationId: string, id: string, tx?: Tx, forUpdate = false): Promise<EndpointRow | null> {
    const rows = await db(this.dataSource, tx).query<EndpointRow[]>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE ${orgEq(1)} AND id = $2
       ${forUpdate ? 'FOR UPDATE' : ''}`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async update(
    organizationId: string,
    id: string,
    changes: {
      url: string;
      description: string | null;
      events: string[];
      enabled: boolean;
      disabledReason: 'failing' | 'gone' | null;
      failingSince: Date | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE webhook_endpoints SET url = $3, description = $4, events = $5, enabled = $6, disabled_reason = $7,
         failing_since = $8, updated_at = $9
       WHERE ${orgEq(1)} AND id = $2`,
      [
        organizationId,
        id,
        changes.url,
        changes.description,
        changes.events,
        changes.enabled,
        changes.disabledReason,
        changes.failingSince,
        changes.now,
      ],
    );
  }

  async rotate(
    organizationId: string,
    id: string,
    r: { secretSealed: string; previousSealed: string; previousExpiresAt: Date; now: Date },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE webhook_endpoints SET secret_sealed = $3, previous_secret_sealed = $4, previous_secret_expires_at = $5,
         secret_rotated_at = $6, updated_at = $6
       WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id, r.secretSealed, r.previousSealed, r.previousExpiresAt, r.now],
    );
  }

  async delete(organizationId: string, id: string, tx: Tx): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `DELETE FROM webhook_endpoints WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id],
    );
    return count > 0;
  }

  /** Enabled endpoints of the organization subscribed to one of these types. */
  async subscribed(
    organizationIds: string[],
    tx: Tx,
  ): Promise<Pick<EndpointRow, 'id' | 'organization_id' | 'events'>[]> {
    if (organizationIds.length === 0) return [];
    return tx.manager.query(
      `SELECT id, organization_id, events FROM webhook_endpoints WHERE ${orgAny(1)} AND enabled`,
      [organizationIds],
    );
  }

  /** Inserts deliveries; a first delivery of an event to an endpoint that already exists is skipped. */
  async insertDeliveries(rows: NewDelivery[], now: Date, tx: Tx): Promise<DeliveryRow[]> {
    if (rows.length === 0) return [];
    return tx.manager.query<DeliveryRow[]>(
      `INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_id, event_type, occurred_at, data,
         redelivery_of, next_attempt_at, created_at)
       SELECT r.organization_id, r.endpoint_id, r.event_id, r.event_type, r.occurred_at, r.data, r.redelivery_of, $2, $2
       FROM jsonb_to_recordset($1::jsonb) AS r(organization_id uuid, endpoint_id uuid, event_id uuid, event_type text,
         occurred_at timestamptz, data jsonb, redelivery_of uuid)
       ON CONFLICT (endpoint_id, event_id) WHERE redelivery_of IS NULL DO NOTHING
       RETURNING ${DELIVERY_COLUMNS}`,
      [
        JSON.stringify(
          rows.map((r) => ({
            organization_id: r.organizationId,
            endpoint_id: r.endpointId,
            event_id: r.eventId,
            event_type: r.eventType,
            occurred_at: r.occurredAt.toISOString(),
            data: r.data,
            redelivery_of: r.redeliveryOf,
          })),
        ),
        now,
      ],
    );
  }

  async findDelivery(organizationId: string, id: string, tx?: Tx): Promise<DeliveryRow | null> {
    const rows = await db(this.dataSource, tx).query<DeliveryRow[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  /** A delivery with its endpoint, in one read (the hot path of every attempt). */
  async deliveryWithEndpoint(
    organizationId: string,
    id: string,
  ): Promise<{ delivery: DeliveryRow; endpoint: EndpointRow } | null> {
    const rows = await this.dataSource.query<{ d: DeliveryRow; e: EndpointRow }[]>(
      `SELECT to_jsonb(d) AS d, to_jsonb(e) AS e FROM webhook_deliveries d
       JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.organization_id = d.organization_id
       WHERE ${orgEq(1, 'd')} AND d.id = $2`,
      [organizationId, id],
    );
    if (!rows[0]) return null;
    const { d, e } = rows[0];
    const date = (v: unknown): Date | null => (v ? new Date(v as string) : null);
    return {
      delivery: {
        ...d,
        occurred_at: date(d.occurred_at)!,
        last_attempt_at: date(d.last_attempt_at),
        next_attempt_at: date(d.next_attempt_at),
        created_at: date(d.created_at)!,
      },
      endpoint: {
        ...e,
        previous_secret_expires_at: date(e.previous_secret_expires_at),
        secret_rotated_at: date(e.secret_rotated_at),
        failing_since: date(e.failing_since),
        created_at: date(e.created_at)!,
        updated_at: date(e.updated_at)!,
      },
    };
  }

  /**
   * Records a successful attempt in one statement, unless this attempt was already recorded (a job run twice);
   * true when this call recorded it.
   */
  async recordSuccess(id: string, o: Omit<AttemptOutcome, 'status' | 'nextAttemptAt' | 'error'>): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `${tenancyExempt('cross-organization-job')} UPDATE webhook_deliveries SET attempts = $2, last_attempt_at = $3, status = 'succeeded', next_attempt_at = NULL,
         last_status_code = $4, last_error = NULL, response_ms = $5
       WHERE id = $1 AND status = 'pending' AND attempts < $2`,
      [id, o.attempt, o.at, o.statusCode, o.ms],
    );
    return count > 0;
  }

  /** A success clears the endpoint's failure clock (only when it runs: no write, no row lock otherwise). */
  async clearFailing(endpointId: string): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('cross-organization-job')} UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`,
      [endpointId],
    );
  }

  /** Locks a delivery for one attempt (null when gone). */
  async lockDelivery(organizationId: string, id: string, tx: Tx): Promise<DeliveryRow | null> {
    const rows = await tx.manager.query<DeliveryRow[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${orgEq(1)} AND id = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async recordAttempt(id: string, o: AttemptOutcome, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('cross-organization-job')} UPDATE webhook_deliveries SET attempts = $2, last_attempt_at = $3, status = $4, next_attempt_at = $5,
         last_status_code = $6, last_error = $7, response_ms = $8
       WHERE id = $1`,
      [id, o.attempt, o.at, o.status, o.nextAttemptAt, o.statusCode, o.error, o.ms],
    );
  }

  /** A delivery that will not be attempted (its endpoint was disabled). */
  async abandon(id: string, reason: string, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('cross-organization-job')} UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = $2
       WHERE id = $1 AND status = 'pending'`,
      [id, reason],
    );
  }

  /** The endpoint's failure clock: started at its first failure since a success, cleared by a success. */
  async markOutcome(endpointId: string, succeeded: boolean, at: Date, tx: Tx): Promise<Date | null> {
    const [rows] = await tx.manager.query<[{ failing_since: Date | null }[], number]>(
      succeeded
        ? `${tenancyExempt('cross-organization-job')} UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 RETURNING failing_since`
        : `${tenancyExempt('cross-organization-job')} UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2) WHERE id = $1
           RETURNING failing_since`,
      succeeded ? [endpointId] : [endpointId, at],
    );
    return rows[0]?.failing_since ?? null;
  }

  /** Disables an enabled endpoint; true when this call did. */
  async disable(endpointId: string, reason: 'failing' | 'gone', now: Date, tx: Tx): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `${tenancyExempt('cross-organization-job')} UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = $3 WHERE id = $1 AND enabled`,
      [endpointId, reason, now],
    );
    return count > 0;
  }

  async failingSince(before: Date): Promise<{ id: string; organization_id: string }[]> {
    return this.dataSource.query(
      `${tenancyExempt('cross-organization-job')} SELECT id, organization_id FROM webhook_endpoints WHERE enabled AND failing_since <= $1 ORDER BY failing_since`,
      [before],
    );
  }

  async listDeliveries(
    organizationId: string,
    endpointId: string,
    filter: { status?: string; eventType?: string; limit: number; offset: number },
  ): Promise<{ rows: DeliveryRow[]; total: number }> {
    const where = `${orgEq(1)} AND endpoint_id = $2 AND ($3::text IS NULL OR status = $3)
      AND ($4::text IS NULL OR event_type = $4)`;
    const params = [organizationId, endpointId, filter.status ?? null, filter.eventType ?? null];
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query<DeliveryRow[]>(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where}
         ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
        [...params, filter.limit, filter.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM webhook_deliveries WHERE ${where}`,
        params,
      ),
    ]);
    return { rows, total };
  }

  async pruneDeliveries(before: Date): Promise<number> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `${tenancyExempt('cross-organization-job')} DELETE FROM webhook_deliveries WHERE created_at < $1`,
      [before],
    );
    return count;
  }

  /**
   * Owners and admins to tell about a disabled endpoint: a read of memberships and users (organizations' and
   * users' tables), their address and language; erased accounts (`.invalid`) are skipped by the mail handler.
   */
  async adminRecipients(organizationId: string, tx?: Tx): Promise<{ email: string; locale: Locale }[]> {
    return db(this.dataSource, tx).query(
      `SELECT u.email, u.locale FROM memberships_read m JOIN users_read u ON u.id = m.user_id
       WHERE ${orgEq(1, 'm')} AND m.role IN ('owner', 'admin') ORDER BY m.role DESC, u.id`,
      [organizationId],
    );
  }
}
