import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import type {
  CreateEndpointDto,
  DeliveryDto,
  DeliveryQueryDto,
  EndpointDto,
  EndpointListDto,
  EndpointWithSecretDto,
  TestEventDto,
  UpdateEndpointDto,
} from './dto/webhook.dto';
import { WebhookDispatch } from './webhook-dispatch';
import { ENDPOINT_LIMIT, ROTATION_OVERLAP_MS } from './webhook-events';
import { TargetRefused, WebhookSender } from './webhook-sender';
import { type DeliveryRow, type EndpointRow, WebhooksRepository } from './webhooks.repository';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toEndpointDto(row: EndpointRow): EndpointDto {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    secret_rotated_at: iso(row.secret_rotated_at),
    created_by: { user_id: row.created_by },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toDeliveryDto(row: DeliveryRow): DeliveryDto {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: iso(row.next_attempt_at),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    response_ms: row.response_ms,
    created_at: row.created_at.toISOString(),
  };
}

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks form). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Endpoints and their delivery log (extensions-v2 25.3), for owners and admins of the organization. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly dispatch: WebhookDispatch,
    private readonly sender: WebhookSender,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
  ) {}

  async list(member: Membership): Promise<EndpointListDto> {
    return { items: (await this.repository.list(member.organizationId)).map(toEndpointDto) };
  }

  async get(member: Membership, endpointId: string): Promise<EndpointDto> {
    return toEndpointDto(await this.endpoint(member, endpointId));
  }

  async create(member: Membership, dto: CreateEndpointDto, ip?: string): Promise<EndpointWithSecretDto> {
    const url = await this.checkUrl(dto.url);
    const secret = newSecret();
    const row = await this.transactions.run(async (tx) => {
      await this.repository.lockOrganization(member.organizationId, tx);
      if ((await this.repository.count(member.organizationId, tx)) >= ENDPOINT_LIMIT) {
        throw ApiError.conflict(
          'endpoint_limit_reached',
          `An organization has at most ${ENDPOINT_LIMIT} webhook endpoints.`,
        );
      }
      const created = await this.repository.insert(
        {
          organizationId: member.organizationId,
          url,
          description: dto.description ?? null,
          events: dto.events,
          enabled: dto.enabled ?? true,
          secretSealed: this.crypto.encrypt(secret),
          createdBy: member.userId,
          now: this.clock.now(),
        },
        tx,
      );
      await this.record('webhook_endpoint.created', member, created.id, ip, tx, {
        events: created.events,
        enabled: created.enabled,
      });
      return created;
    });
    return { ...toEndpointDto(row), secret };
  }

  async update(member: Membership, endpointId: string, dto: UpdateEndpointDto, ip?: string): Promise<EndpointDto> {
    const id = this.idOr404(endpointId);
    const url = dto.url !== undefined ? await this.checkUrl(dto.url) : undefined;
    await this.transactions.run(async (tx) => {
      const current = await this.repository.find(member.organizationId, id, tx, true);
      if (!current) throw ApiError.notFound();
      const enabled = dto.enabled ?? current.enabled;
      const enabling = dto.enabled === true;
      await this.repository.update(
        member.organizationId,
        id,
        {
          url: url ?? current.url,
          description: dto.description === undefined ? current.description : dto.description,
          events: dto.events ?? current.events,
          enabled,
          // Enabling clears the reason and the failure clock; disabling by hand states no reason.
          disabledReason: enabled ? null : enabling ? null : current.disabled_reason,
          failingSince: enabling ? null : current.failing_since,
          now: this.clock.now(),
        },
        tx,
      );
      await this.record('webhook_endpoint.updated', member, id, ip, tx, {
        fields: Object.keys(dto)
          .filter((k) => (dto as Record<string, unknown>)[k] !== undefined)
          .sort(),
        enabled,
      });
    });
    return this.get(member, id);
  }

  async remove(member: Membership, endpointId: string, ip?: string): Promise<void> {
    const id = this.idOr404(endpointId);
    await this.transactions.run(async (tx) => {
      // Its deliveries go with it: pending attempts find nothing and stop.
      if (!(await this.repository.delete(member.organizationId, id, tx))) throw ApiError.notFound();
      await this.record('webhook_endpoint.deleted', member, id, ip, tx, {});
    });
  }

  async rotateSecret(member: Membership, endpointId: string, ip?: string): Promise<EndpointWithSecretDto> {
    const id = this.idOr404(endpointId);
    const secret = newSecret();
    await this.transactions.run(async (tx) => {
      const current = await this.repository.find(member.organizationId, id, tx, true);
      if (!current) throw ApiError.notFound();
      const now = this.clock.now();
      await this.repository.rotate(
        member.organizationId,
        id,
        {
          secretSealed: this.crypto.encrypt(secret),
          previousSealed: current.secret_sealed,
          previousExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
          now,
        },
        tx,
      );
      await this.record('webhook_endpoint.secret_rotated', member, id, ip, tx, {});
    });
    return { ...(await this.get(member, id)), secret };
  }

  async test(member: Membership, endpointId: string): Promise<TestEventDto> {
    const endpoint = await this.endpoint(member, endpointId);
    if (!endpoint.enabled) throw disabled();
    const eventId = randomUUID();
    await this.transactions.run(async (tx) => {
      await this.dispatch.create(
        [
          {
            organizationId: member.organizationId,
            endpointId: endpoint.id,
            eventId,
            eventType: 'webhook.test',
            occurredAt: this.clock.now(),
            data: {},
            redeliveryOf: null,
          },
        ],
        tx,
      );
    });
    return { event_id: eventId };
  }

  async deliveries(member: Membership, endpointId: string, query: DeliveryQueryDto): Promise<Page<DeliveryDto>> {
    const endpoint = await this.endpoint(member, endpointId);
    const { rows, total } = await this.repository.listDeliveries(member.organizationId, endpoint.id, {
      status: query.status,
      eventType: query.event_type,
      limit: query.limit,
      offset: query.offset,
    });
    return toPage(rows.map(toDeliveryDto), total, query);
  }

  async redeliver(member: Membership, endpointId: string, deliveryId: string): Promise<DeliveryDto> {
    const endpoint = await this.endpoint(member, endpointId);
    const original = isUuid(deliveryId) ? await this.repository.findDelivery(member.organizationId, deliveryId) : null;
    if (!original || original.endpoint_id !== endpoint.id) throw ApiError.notFound();
    if (!endpoint.enabled) throw disabled();
    const created = await this.transactions.run((tx) =>
      this.dispatch.create(
        [
          {
            organizationId: member.organizationId,
            endpointId: endpoint.id,
            eventId: original.event_id,
            eventType: original.event_type,
            occurredAt: original.occurred_at,
            data: original.data,
            redeliveryOf: original.redelivery_of ?? original.id,
          },
        ],
        tx,
      ),
    );
    return toDeliveryDto(created[0]);
  }

  // Helpers.

  private async endpoint(member: Membership, endpointId: string): Promise<EndpointRow> {
    const row = await this.repository.find(member.organizationId, this.idOr404(endpointId));
    if (!row) throw ApiError.notFound();
    return row;
  }

  private idOr404(id: string): string {
    if (!isUuid(id)) throw ApiError.notFound();
    return id;
  }

  private async checkUrl(raw: string): Promise<string> {
    try {
      await this.sender.check(raw);
      return raw;
    } catch (err) {
      if (err instanceof TargetRefused) throw ApiError.validation([{ field: 'url', message: `url ${err.message}` }]);
      throw err;
    }
  }

  private async record(
    action:
      | 'webhook_endpoint.created'
      | 'webhook_endpoint.updated'
      | 'webhook_endpoint.deleted'
      | 'webhook_endpoint.secret_rotated',
    member: Membership,
    endpointId: string,
    ip: string | undefined,
    tx: Tx,
    metadata: Record<string, string | number | boolean | null | string[]>,
  ): Promise<void> {
    await this.audit.record(
      {
        action,
        actorId: member.userId,
        organizationId: member.organizationId,
        targetType: 'webhook_endpoint',
        targetId: endpointId,
        ip,
        metadata,
      },
      tx,
    );
  }
}

function disabled(): ApiError {
  return ApiError.conflict('endpoint_disabled', 'The endpoint is disabled; enable it first.');
}
