import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { DELIVER_FCM, DELIVER_PUSH } from '../notifications.jobs';
import { JobsService } from '@/core/queue/jobs.service';
import type { CreateDeviceDto, CreateSubscriptionDto, DeviceDto, SubscriptionDto } from '../dto/push.dto';
import { type DeviceRow, NotificationsRepository, type SubscriptionRow } from '../notifications.repository';
import { NativePushProvider } from './fcm.provider';
import { AddressRefused } from '@/core/net/guarded-net';
import { isCallableEndpoint } from './push-endpoint';
import { WebPushSender } from './web-push-sender';

/** At most this many web push subscriptions, and native devices, per person (the oldest is dropped). */
export const MAX_PER_PERSON = 20;
/** Payload limit of 13.3. */
const MAX_PAYLOAD_BYTES = 3 * 1024;

/**
 * Web push subscriptions and native devices (extensions-v2 13.5), and the delivery jobs of 13.3. Subscriptions and
 * devices belong to the person, not to an organization: a bearer token sees them all (2.4).
 */
@Injectable()
export class PushService {
  private readonly logger = new Logger('Push');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: NotificationsRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly jobs: JobsService,
    private readonly webPush: WebPushSender,
    private readonly nativePush: NativePushProvider,
  ) {}

  private get allowLoopbackHttp(): boolean {
    return this.config.nodeEnv !== 'production';
  }

  private requireWebPush(): void {
    if (!this.webPush.enabled) throw ApiError.notFound('Push is not configured on this server.', 'push_disabled');
  }

  vapidKey(): { public_key: string } {
    this.requireWebPush();
    return { public_key: this.config.push.vapid!.publicKey };
  }

  async subscribe(userId: string, dto: CreateSubscriptionDto): Promise<{ dto: SubscriptionDto; created: boolean }> {
    this.requireWebPush();
    const problems: { field: string; message: string }[] = [];
    if (Buffer.from(dto.keys.p256dh, 'base64url').length !== 65 || Buffer.from(dto.keys.p256dh, 'base64url')[0] !== 4) {
      problems.push({ field: 'keys.p256dh', message: 'must be an uncompressed P-256 point (65 bytes)' });
    }
    if (Buffer.from(dto.keys.auth, 'base64url').length !== 16) {
      problems.push({ field: 'keys.auth', message: 'must be 16 bytes' });
    }
    if (!(await isCallableEndpoint(dto.endpoint, this.allowLoopbackHttp))) {
      problems.push({ field: 'endpoint', message: 'must be an https URL of a public push service' });
    }
    if (problems.length) throw ApiError.validation(problems);
    const { row, created } = await this.transactions.run((tx) =>
      this.repository.upsertSubscription(
        userId,
        { endpoint: dto.endpoint, p256dh: dto.keys.p256dh, auth: dto.keys.auth, expiration_time: dto.expiration_time },
        MAX_PER_PERSON,
        this.clock.now(),
        tx,
      ),
    );
    return { dto: subscriptionDto(row), created };
  }

  async subscriptions(userId: string): Promise<{ items: SubscriptionDto[] }> {
    return { items: (await this.repository.subscriptionsOf(userId)).map(subscriptionDto) };
  }

  async unsubscribe(userId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repository.deleteSubscription(userId, id.toLowerCase()))) {
      throw ApiError.notFound();
    }
  }

  async registerDevice(userId: string, dto: CreateDeviceDto): Promise<{ dto: DeviceDto; created: boolean }> {
    const { row, created } = await this.transactions.run((tx) =>
      this.repository.upsertDevice(
        userId,
        {
          platform: dto.platform,
          token: dto.token,
          token_hash: createHash('sha256').update(dto.token).digest('hex'),
          app_version: dto.app_version ?? null,
        },
        MAX_PER_PERSON,
        this.clock.now(),
        tx,
      ),
    );
    return { dto: this.deviceDto(row), created };
  }

  async devices(userId: string): Promise<{ items: DeviceDto[] }> {
    return { items: (await this.repository.devicesOf(userId)).map((d) => this.deviceDto(d)) };
  }

  async removeDevice(userId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repository.deleteDevice(userId, id.toLowerCase()))) throw ApiError.notFound();
  }

  /** One test push per subscription and device, now (quiet hours do not apply to a push the person asked for). */
  async test(credential: Credential): Promise<{ queued: number }> {
    this.requireWebPush();
    const userId = credential.userId;
    let queued = 0;
    await this.transactions.run(async (tx) => {
      for (const s of await this.repository.subscriptionsOf(userId, tx)) {
        await this.jobs.enqueue(
          DELIVER_PUSH,
          { subscription_id: s.id, notification_id: null, user_id: userId },
          { organizationId: null, tx },
        );
        queued++;
      }
      if (this.nativePush.enabled) {
        for (const d of await this.repository.devicesOf(userId, tx)) {
          await this.jobs.enqueue(
            DELIVER_FCM,
            { device_id: d.id, notification_id: null, user_id: userId },
            { organizationId: null, tx },
          );
          queued++;
        }
      }
    });
    return { queued };
  }

  /** The job of 13.3: 404/410 delete the subscription, 429/5xx retry (throw), other 4xx are logged and dropped. */
  async deliverWebPush(payload: {
    subscription_id: string;
    notification_id: string | null;
    user_id: string;
  }): Promise<void> {
    if (!this.webPush.enabled) return;
    const sub = await this.repository.subscription(payload.subscription_id);
    if (!sub || sub.user_id !== payload.user_id) return; // removed, or moved to another account since
    const message = await this.message(payload.notification_id, payload.user_id);
    if (!message) return;
    // No look-up here: the sender's own connection checks the address it connects to (extensions-v3 6.7).
    let status: number;
    try {
      ({ status } = await this.webPush.send(sub, JSON.stringify(message.payload), {
        topic: message.payload.category,
        urgency: message.payload.category === 'duels' ? 'high' : 'normal',
      }));
    } catch (err) {
      if (!(err instanceof AddressRefused)) throw err;
      this.logger.warn({ subscription_id: sub.id }, 'Push endpoint no longer resolves to a public address; skipped');
      return;
    }
    await this.outcome(status, 'web', sub.id);
  }

  async deliverNative(payload: { device_id: string; notification_id: string | null; user_id: string }): Promise<void> {
    if (!this.nativePush.enabled) return;
    const device = await this.repository.device(payload.device_id);
    if (!device || device.user_id !== payload.user_id) return;
    const message = await this.message(payload.notification_id, payload.user_id);
    if (!message) return;
    const p = message.payload;
    const outcome = await this.nativePush.send({
      token: device.token,
      title: p.title,
      body: p.body,
      collapseKey: p.category,
      data: {
        notification_id: p.notification_id ?? '',
        category: p.category,
        url: p.url,
        organization_id: p.organization_id ?? '',
      },
    });
    await this.outcome(
      outcome === 'sent' ? 200 : outcome === 'gone' ? 410 : outcome === 'retry' ? 503 : 400,
      'native',
      device.id,
    );
  }

  private async outcome(status: number, kind: 'web' | 'native', id: string): Promise<void> {
    const now = this.clock.now();
    if (status >= 200 && status < 300) {
      if (kind === 'web') await this.repository.subscriptionSucceeded(id, now);
      else await this.repository.deviceSucceeded(id, now);
      return;
    }
    if (status === 404 || status === 410) {
      if (kind === 'web') await this.repository.deleteSubscription(null, id);
      else await this.repository.deleteDevice(null, id);
      this.logger.log({ kind, id, status }, 'Push target gone; removed');
      return;
    }
    if (status === 429 || status >= 500) throw new Error(`Push service answered ${status}; retrying`);
    this.logger.error({ kind, id, status }, 'Push service refused the message; not retried');
  }

  /** The payload of 13.3 (at most 3 KiB: the body is shortened to fit). */
  private async message(
    notificationId: string | null,
    userId: string,
  ): Promise<{
    payload: {
      notification_id: string | null;
      category: string;
      title: string;
      body: string;
      url: string;
      organization_id: string | null;
    };
  } | null> {
    let payload;
    if (notificationId === null) {
      const [person] = await this.repository.recipients([userId]);
      const locale = person?.locale ?? 'es';
      payload = {
        notification_id: null,
        category: 'test',
        title: locale === 'en' ? 'Test notification' : 'Notificación de prueba',
        body:
          locale === 'en'
            ? 'Push notifications work on this device.'
            : 'Las notificaciones push funcionan en este dispositivo.',
        url: `${this.config.webUrl.replace(/\/+$/, '')}/settings/notifications`,
        organization_id: null,
      };
    } else {
      const n = await this.repository.find(notificationId);
      if (!n || n.user_id !== userId) return null; // deleted or pruned meanwhile
      payload = {
        notification_id: n.id,
        category: n.category,
        title: n.title,
        body: n.body,
        url: n.url,
        organization_id: n.organization_id,
      };
    }
    while (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES && payload.body.length > 0) {
      payload.body = payload.body.slice(0, Math.floor(payload.body.length * 0.8));
    }
    return { payload };
  }

  private deviceDto(row: DeviceRow): DeviceDto {
    return {
      id: row.id,
      platform: row.platform,
      created_at: row.created_at.toISOString(),
      last_success_at: row.last_success_at ? row.last_success_at.toISOString() : null,
      delivery: this.nativePush.enabled ? 'enabled' : 'disabled',
    };
  }
}

function subscriptionDto(row: SubscriptionRow): SubscriptionDto {
  return {
    id: row.id,
    endpoint_origin: new URL(row.endpoint).origin,
    created_at: row.created_at.toISOString(),
    last_success_at: row.last_success_at ? row.last_success_at.toISOString() : null,
  };
}
