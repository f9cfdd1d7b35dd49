import { Inject, Injectable, Logger } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEventBatch } from '@/core/events/on-domain-event.decorator';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { JobsService } from '@/core/queue/jobs.service';
import { type ScheduleContext, ScheduleHandler } from '@/core/queue/schedule';
import { resolveLocale } from '@/core/mail/mail-template';
import { MailService } from '@/core/mail/mail.service';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { DELIVER, DISABLE_FAILING, PRUNE_DELIVERIES } from './webhooks.jobs';
import {
  DELIVERY_RETENTION_MS,
  FAILING_DISABLE_AFTER_MS,
  nextAttemptDelay,
  SOURCE_EVENTS,
  type SourceEvent,
  USER_AGENT,
  webhookOf,
} from './webhook-events';
import { WebhookSender } from './webhook-sender';
import { ENDPOINT_DISABLED } from './webhooks.mails';
import { type DeliveryRow, type EndpointRow, type NewDelivery, WebhooksRepository } from './webhooks.repository';

/** The body of a delivery: the same bytes on every attempt (jsonb keeps `data` in one order). */
export function webhookBody(
  d: Pick<DeliveryRow, 'event_id' | 'event_type' | 'occurred_at' | 'organization_id' | 'data'>,
): string {
  return JSON.stringify({
    id: d.event_id,
    type: d.event_type,
    timestamp: d.occurred_at.toISOString(),
    organization_id: d.organization_id,
    data: d.data,
  });
}

/**
 * The delivery machinery of outbound webhooks (extensions-v2 25.3): fans domain events out to the subscribed
 * endpoints (a batch subscriber, in the delivery's transaction), makes each attempt as an outbox job on queue
 * `webhooks`, records it, schedules the next one (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and disables endpoints
 * that answer 410 or have failed for 5 days.
 */
@Injectable()
export class WebhookDispatch {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly sender: WebhookSender,
    private readonly jobs: JobsService,
    private readonly transactions: TransactionRunner,
    private readonly crypto: CryptoService,
    private readonly mail: MailService,
    private readonly organizations: OrganizationsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @OnDomainEventBatch(SOURCE_EVENTS, { id: 'webhooks.fan_out', size: 200 })
  async fanOut(events: DomainEvent<SourceEvent>[], ctx: DeliveryContext): Promise<void> {
    const scoped = events.filter((e) => e.organization_id !== null);
    const organizationIds = [...new Set(scoped.map((e) => e.organization_id!))];
    const endpoints = await this.repository.subscribed(organizationIds, ctx.tx);
    if (endpoints.length === 0) return;
    const rows: NewDelivery[] = [];
    for (const event of scoped) {
      const { type, data } = webhookOf(event);
      for (const endpoint of endpoints) {
        if (endpoint.organization_id !== event.organization_id || !endpoint.events.includes(type)) continue;
        rows.push({
          organizationId: endpoint.organization_id,
          endpointId: endpoint.id,
          eventId: event.id,
          eventType: type,
          occurredAt: event.occurred_at,
          data,
          redeliveryOf: null,
        });
      }
    }
    await this.create(rows, ctx.tx);
  }

  /** Records deliveries and enqueues their first attempt (at once), in the caller's transaction. */
  async create(rows: NewDelivery[], tx: Tx): Promise<DeliveryRow[]> {
    const created = await this.repository.insertDeliveries(rows, this.clock.now(), tx);
    for (const d of created) await this.enqueue(d, 1, 0, tx);
    return created;
  }

  private async enqueue(d: Pick<DeliveryRow, 'id' | 'organization_id'>, attempt: number, delayMs: number, tx: Tx) {
    await this.jobs.enqueue(
      DELIVER,
      { delivery_id: d.id, attempt },
      { organizationId: d.organization_id, tx, delayMs, dedupeKey: `webhooks.deliver:${d.id}:${attempt}` },
    );
  }

  @JobHandler(DELIVER)
  async deliver(payload: { delivery_id: string; attempt: number }, ctx: JobContext): Promise<void> {
    if (!ctx.organizationId) return;
    const found = await this.repository.deliveryWithEndpoint(ctx.organizationId, payload.delivery_id);
    // Gone (endpoint deleted, pruned), settled, or this attempt already made: nothing to do.
    if (!found) return;
    const { delivery, endpoint } = found;
    if (delivery.status !== 'pending' || delivery.attempts >= payload.attempt) return;
    if (!endpoint.enabled) {
      await this.transactions.run((tx) => this.repository.abandon(delivery.id, 'endpoint disabled', tx));
      return;
    }

    const at = this.clock.now();
    const body = webhookBody(delivery);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': this.signatures(endpoint, delivery.event_id, at, body),
    };
    const result = await this.sender.send(endpoint.url, headers, body);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    if (ok) {
      // The hot path: one statement, and the endpoint row is written only when it was failing.
      const recorded = await this.repository.recordSuccess(delivery.id, {
        attempt: payload.attempt,
        at,
        statusCode: result.status,
        ms: result.ms,
      });
      if (recorded && endpoint.failing_since) await this.repository.clearFailing(endpoint.id);
      return;
    }
    const gone = result.status === 410;
    const delay = gone ? null : nextAttemptDelay(payload.attempt);
    await this.transactions.run(async (tx) => {
      const locked = await this.repository.lockDelivery(ctx.organizationId!, delivery.id, tx);
      if (!locked || locked.status !== 'pending' || locked.attempts >= payload.attempt) return;
      const now = this.clock.now();
      const failingSince = await this.repository.markOutcome(endpoint.id, false, at, tx);
      const reason = gone
        ? 'gone'
        : failingSince && now.getTime() - failingSince.getTime() >= FAILING_DISABLE_AFTER_MS
          ? 'failing'
          : null;
      const disabled = reason !== null && (await this.repository.disable(endpoint.id, reason, now, tx));
      // A disabled endpoint gets no further attempt: the delivery fails now.
      const next = disabled ? null : delay;
      await this.repository.recordAttempt(
        delivery.id,
        {
          attempt: payload.attempt,
          at,
          status: next === null ? 'failed' : 'pending',
          nextAttemptAt: next === null ? null : new Date(now.getTime() + next),
          statusCode: result.status,
          error: result.error ?? `HTTP ${result.status}`,
          ms: result.ms,
        },
        tx,
      );
      if (disabled) {
        await this.tellOwners(endpoint, reason, tx);
        return;
      }
      if (next !== null) await this.enqueue(delivery, payload.attempt + 1, next, tx);
    });
  }

  /**
   * `v1,<signature>` with the current secret, and during the 24 h after a rotation a second one with the previous
   * secret (space-separated), signed by the `standardwebhooks` package.
   */
  signatures(endpoint: EndpointRow, eventId: string, at: Date, body: string): string {
    const secrets = [this.crypto.decrypt(endpoint.secret_sealed)];
    if (
      endpoint.previous_secret_sealed &&
      endpoint.previous_secret_expires_at &&
      endpoint.previous_secret_expires_at.getTime() > at.getTime()
    ) {
      secrets.push(this.crypto.decrypt(endpoint.previous_secret_sealed));
    }
    return secrets.map((s) => new Webhook(s).sign(eventId, at, body)).join(' ');
  }

  @ScheduleHandler(DISABLE_FAILING)
  async disableFailing(ctx: ScheduleContext): Promise<void> {
    const before = new Date(ctx.scheduledAt.getTime() - FAILING_DISABLE_AFTER_MS);
    for (const { id, organization_id } of await this.repository.failingSince(before)) {
      const endpoint = await this.repository.find(organization_id, id);
      if (!endpoint) continue;
      await this.transactions.run(async (tx) => {
        if (await this.repository.disable(id, 'failing', ctx.scheduledAt, tx))
          await this.tellOwners(endpoint, 'failing', tx);
      });
    }
  }

  @ScheduleHandler(PRUNE_DELIVERIES)
  async prune(ctx: ScheduleContext): Promise<void> {
    const removed = await this.repository.pruneDeliveries(new Date(ctx.scheduledAt.getTime() - DELIVERY_RETENTION_MS));
    if (removed > 0) this.logger.log({ removed }, 'Old webhook deliveries pruned');
  }

  /** Owners and admins get `webhooks.endpoint_disabled`, in the transaction that disabled the endpoint (so once). */
  private async tellOwners(endpoint: EndpointRow, reason: 'failing' | 'gone', tx: Tx): Promise<void> {
    const organization = await this.organizations.getById(endpoint.organization_id);
    for (const recipient of await this.repository.adminRecipients(endpoint.organization_id, tx)) {
      await this.mail.send(
        ENDPOINT_DISABLED,
        {
          organizationName: organization.name,
          url: endpoint.url,
          reason,
          settingsUrl: `${this.config.webUrl}/organizations/${endpoint.organization_id}/settings/webhooks`,
        },
        {
          to: recipient.email,
          locale: resolveLocale(recipient.locale, organization.locale),
          organizationId: endpoint.organization_id,
          kind: 'transactional',
          tx,
        },
      );
    }
  }
}
