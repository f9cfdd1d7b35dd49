import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import type { Tx } from '@/core/database/transaction';
import { MailService } from '@/core/mail/mail.service';
import { type Locale, resolveLocale } from '@/core/mail/mail-template';
import { listUnsubscribeHeaders, unsubscribeToken, unsubscribeUrl } from '@/core/mail/unsubscribe-token';
import { JobsService } from '@/core/queue/jobs.service';
import {
  type Category,
  type ChannelPreference,
  effectivePreferences,
  isEmailCategory,
} from './notification-categories';
import { type ContentParams, NOTIFICATION_MAILS, write } from './notification-content';
import { DELIVER_FCM, DELIVER_PUSH } from './notifications.jobs';
import { NotificationsRealtime } from './notifications-realtime';
import { type NotificationRow, NotificationsRepository, type Recipient } from './notifications.repository';
import { NativePushProvider } from './push/fcm.provider';
import { WebPushSender } from './push/web-push-sender';
import { quietHoursDelayMs } from './quiet-hours';

export interface NotifySpec {
  userId: string;
  organizationId: string | null;
  category: Category;
  /** The fact (a domain event id, a schedule key): one notification per source and person. */
  sourceKey: string;
  /** A path under `{web_url}` (`/courses/<id>`). */
  path: string;
  data: Record<string, string>;
  content: ContentParams;
}

/**
 * The delivery of extensions-v2 13.3, inside the transaction of the subscriber (or job) that creates it: the row
 * (unique per source and person, so a redelivery creates nothing), the real-time event after commit, then per the
 * person's preferences one push job per web push subscription and native device and the email, each delayed to the
 * end of the person's quiet hours. Transactional mail never comes through here.
 */
@Injectable()
export class NotificationPipeline {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: NotificationsRepository,
    private readonly jobs: JobsService,
    private readonly mail: MailService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly webPush: WebPushSender,
    private readonly nativePush: NativePushProvider,
    private readonly realtime: NotificationsRealtime,
  ) {}

  url(path: string): string {
    return `${this.config.webUrl.replace(/\/+$/, '')}${path}`;
  }

  /** Creates and delivers one notification; null when the person is gone, wants none of it, or already has it. */
  async notify(spec: NotifySpec, tx: Tx): Promise<NotificationRow | null> {
    return (await this.notifyMany([spec], tx))[0];
  }

  /**
   * `notify` for several notifications in one transaction (a batch of events): the people and the organizations are
   * read once for all, then each notification is created and delivered in order as `notify` does. Answers, per spec
   * in order, the row created or null.
   */
  async notifyMany(specs: readonly NotifySpec[], tx: Tx): Promise<(NotificationRow | null)[]> {
    if (specs.length === 0) return [];
    const recipients = new Map(
      (await this.repository.recipients([...new Set(specs.map((s) => s.userId))], tx)).map((r) => [r.id, r]),
    );
    const wanted = specs.map((spec) => {
      const recipient = recipients.get(spec.userId);
      if (!recipient || recipient.erased) return null;
      const pref = effectivePreferences(recipient.categories ?? {})[spec.category];
      return pref.in_app || pref.push || pref.email ? { recipient, pref } : null;
    });
    const orgIds = [
      ...new Set(specs.flatMap((s, i) => (wanted[i] && s.organizationId !== null ? [s.organizationId] : []))),
    ];
    const organizations = await this.repository.organizations(orgIds, tx);
    const out: (NotificationRow | null)[] = [];
    for (let i = 0; i < specs.length; i++) {
      const spec = specs[i];
      const w = wanted[i];
      if (!w) {
        out.push(null);
        continue;
      }
      const orgLocale = spec.organizationId ? organizations.get(spec.organizationId)?.locale : null;
      const locale = resolveLocale(w.recipient.locale, orgLocale);
      const written = write(locale, spec.content);
      const row = await this.repository.insert(
        {
          user_id: w.recipient.id,
          organization_id: spec.organizationId,
          category: spec.category,
          title: written.title,
          body: written.body,
          url: this.url(spec.path),
          data: spec.data,
          source_key: spec.sourceKey,
          in_app: w.pref.in_app,
        },
        this.clock.now(),
        tx,
      );
      out.push(row);
      if (!row) continue;
      if (row.in_app) this.realtime.created(row, tx);
      await this.deliver(row, w.recipient, w.pref, locale, tx);
    }
    return out;
  }

  /** Queues the push and email deliveries of a created notification. */
  async deliver(
    row: NotificationRow,
    recipient: Recipient,
    pref: ChannelPreference,
    locale: Locale,
    tx: Tx,
  ): Promise<void> {
    const delayMs = quietHoursDelayMs(this.clock.now(), recipient.time_zone, recipient.quiet);
    if (pref.push) {
      if (this.webPush.enabled) {
        for (const s of await this.repository.subscriptionsOf(recipient.id, tx)) {
          await this.jobs.enqueue(
            DELIVER_PUSH,
            { subscription_id: s.id, notification_id: row.id, user_id: recipient.id },
            { organizationId: row.organization_id, tx, delayMs, dedupeKey: `push:${row.id}:${s.id}` },
          );
        }
      }
      if (this.nativePush.enabled) {
        for (const d of await this.repository.devicesOf(recipient.id, tx)) {
          await this.jobs.enqueue(
            DELIVER_FCM,
            { device_id: d.id, notification_id: row.id, user_id: recipient.id },
            { organizationId: row.organization_id, tx, delayMs, dedupeKey: `fcm:${row.id}:${d.id}` },
          );
        }
      }
    }
    if (pref.email && isEmailCategory(row.category)) {
      const base = this.config.baseUrl;
      await this.mail.send(
        NOTIFICATION_MAILS[row.category],
        {
          title: row.title,
          body: row.body,
          url: row.url,
          unsubscribeUrl: unsubscribeUrl(base, unsubscribeToken(this.crypto, recipient.id, row.category), row.category),
          settingsUrl: this.url('/settings/notifications'),
        },
        {
          to: recipient.email,
          locale,
          organizationId: row.organization_id,
          kind: 'notification',
          category: row.category,
          headers: listUnsubscribeHeaders(this.crypto, base, recipient.id, row.category),
          delayMs,
          dedupeKey: `notification-mail:${row.id}`,
          tx,
        },
      );
    }
  }
}
