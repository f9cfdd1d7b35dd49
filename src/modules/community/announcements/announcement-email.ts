import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { MailService } from '@/core/mail/mail.service';
import { defineMailTemplate } from '@/core/mail/mail-template';
import { listUnsubscribeHeaders, unsubscribeToken, unsubscribeUrl } from '@/core/mail/unsubscribe-token';
import { defineJob } from '@/core/queue/job-definition';
import { type JobContext, JobHandler } from '@/core/queue/job-handler.decorator';
import { JobsService } from '@/core/queue/jobs.service';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { announcementParagraphs } from './announcement-markdown';
import { pickTranslation } from './announcement-record';
import { type AnnouncementRow, AnnouncementsRepository } from './announcements.repository';

/** The consent a non-critical announcement email needs (extensions-v2 17.2). */
export const PRODUCT_UPDATES_CONSENT = 'product_updates_email';
/** Recipients per fan-out job (each job queues their messages in one transaction). */
export const EMAIL_BATCH_SIZE = 500;

interface AnnouncementMail {
  title: string;
  paragraphs: string[];
  critical: boolean;
  webUrl: string;
  /** Null for critical ones: a service notice offers no unsubscribe it would not honour (extensions-v3 6.9). */
  unsubscribeUrl: string | null;
}

export const ANNOUNCEMENT_MAIL = defineMailTemplate<AnnouncementMail>('announcements.announcement', {
  es: (p) => ({
    subject: p.critical ? `Aviso importante: ${p.title}` : p.title,
    heading: p.title,
    paragraphs: p.paragraphs,
    button: { label: 'Abrir la plataforma', url: p.webUrl },
    footer: p.critical
      ? 'Aviso de servicio enviado a todas las personas afectadas: llega aunque no recibas novedades por correo.'
      : `Recibes este correo porque aceptaste recibir novedades de la plataforma. Darte de baja: ${p.unsubscribeUrl}`,
  }),
  en: (p) => ({
    subject: p.critical ? `Important notice: ${p.title}` : p.title,
    heading: p.title,
    paragraphs: p.paragraphs,
    button: { label: 'Open the platform', url: p.webUrl },
    footer: p.critical
      ? 'A service notice sent to everyone affected: it comes even if you do not receive news by email.'
      : `You receive this email because you agreed to hear about platform news. Unsubscribe: ${p.unsubscribeUrl}`,
  }),
});

/** Sends once at `starts_at`: marks the announcement emailed and starts the fan-out. */
export const SEND_ANNOUNCEMENT_EMAIL = defineJob<{ announcement_id: string }>({
  name: 'announcements.send_email',
  queue: 'default',
});

/** One batch of recipients after `after` (user id order), then the next batch. */
export const ANNOUNCEMENT_EMAIL_BATCH = defineJob<{ announcement_id: string; after: string | null }>({
  name: 'announcements.email_batch',
  queue: 'default',
});

/**
 * The announcement email (extensions-v2 18): a delayed outbox job at `starts_at` decides, under the row's lock,
 * that the announcement goes out (once: `emailed_at`), then fan-out jobs of 500 recipients queue one message each
 * (dedupe per announcement and person, so a redelivered batch sends nothing twice). Critical announcements go to
 * the whole audience (a service notice), others only to people whose latest `product_updates_email` consent is
 * granted. Every message has kind `announcement` (the suppression list stops it after a complaint) and the RFC 8058
 * headers with `type=all`.
 */
@Injectable()
export class AnnouncementEmails {
  private readonly logger = new Logger('Announcements');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: AnnouncementsRepository,
    private readonly jobs: JobsService,
    private readonly mail: MailService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly cohorts: CohortsService,
  ) {}

  /** Queues the send for `starts_at` (now when it has passed), in the caller's transaction. */
  async schedule(row: AnnouncementRow, tx: Tx): Promise<void> {
    await this.jobs.enqueue(
      SEND_ANNOUNCEMENT_EMAIL,
      { announcement_id: row.id },
      { organizationId: row.organization_id, tx, delayMs: Math.max(0, row.starts_at.getTime() - this.clock.nowMs()) },
    );
  }

  @JobHandler(SEND_ANNOUNCEMENT_EMAIL)
  async send(payload: { announcement_id: string }, ctx: JobContext): Promise<void> {
    await this.transactions.run(async (tx) => {
      // The job's organization is the announcement's scope: a payload naming another tenant's row finds nothing.
      const row = await this.repository.findForUpdate(ctx.organizationId, payload.announcement_id, tx);
      if (!row || !row.email || row.emailed_at) return;
      if (row.starts_at.getTime() > this.clock.nowMs()) {
        // Early (the start moved later, or the job ran ahead of the Clock): a successor waits for the new time.
        await this.schedule(row, tx);
        return;
      }
      await this.repository.markEmailed(row.id, this.clock.now(), tx);
      await this.jobs.enqueue(
        ANNOUNCEMENT_EMAIL_BATCH,
        { announcement_id: row.id, after: null },
        { organizationId: row.organization_id, tx, dedupeKey: `announcement-email:${row.id}:start` },
      );
      this.logger.log({ announcement_id: row.id, severity: row.severity }, 'Announcement email started');
    });
  }

  @JobHandler(ANNOUNCEMENT_EMAIL_BATCH)
  async batch(payload: { announcement_id: string; after: string | null }, ctx: JobContext): Promise<void> {
    const row = await this.repository.find(ctx.organizationId, payload.announcement_id);
    if (!row || !row.emailed_at) return; // deleted meanwhile: the rest of the fan-out stops
    const page = await this.audiencePage(row, payload.after);
    const next = page.length === EMAIL_BATCH_SIZE ? page[page.length - 1] : null;
    const inCohorts =
      row.organization_id !== null && row.audience_cohort_ids.length > 0
        ? await this.cohorts.membersAmong(row.organization_id, row.audience_cohort_ids, page)
        : page;
    const recipients = await this.users.mailContacts(
      inCohorts,
      row.severity === 'critical' ? null : PRODUCT_UPDATES_CONSENT,
    );
    await this.transactions.run(async (tx) => {
      for (const person of recipients) {
        const t = pickTranslation(row.translations, person.locale);
        const critical = row.severity === 'critical';
        await this.mail.send(
          ANNOUNCEMENT_MAIL,
          {
            title: t.title,
            paragraphs: announcementParagraphs(t.body_md),
            critical,
            webUrl: this.config.webUrl,
            unsubscribeUrl: critical
              ? null
              : unsubscribeUrl(this.config.baseUrl, unsubscribeToken(this.crypto, person.id, 'all'), 'all'),
          },
          {
            to: person.email,
            locale: person.locale,
            organizationId: row.organization_id,
            kind: 'announcement',
            // A service notice carries no List-Unsubscribe: it goes whatever the person's choice (6.9).
            ...(critical
              ? {}
              : { headers: listUnsubscribeHeaders(this.crypto, this.config.baseUrl, person.id, 'all') }),
            dedupeKey: `announcement:${row.id}:${person.id}`,
            tx,
          },
        );
      }
      if (next) {
        await this.jobs.enqueue(
          ANNOUNCEMENT_EMAIL_BATCH,
          { announcement_id: row.id, after: next },
          { organizationId: row.organization_id, tx, dedupeKey: `announcement-email:${row.id}:${next}` },
        );
      }
    });
    this.logger.log(
      { announcement_id: row.id, candidates: page.length, recipients: recipients.length, more: next !== null },
      'Announcement email batch queued',
    );
  }

  /** One page of the audience's member ids, in id order after `after` (before the cohort and consent filters). */
  private audiencePage(row: AnnouncementRow, after: string | null): Promise<string[]> {
    const roles = row.audience_roles.length ? row.audience_roles : null;
    if (row.organization_id !== null) {
      return this.organizations.memberIdsAfter(
        { organizationIds: [row.organization_id], roles },
        after,
        EMAIL_BATCH_SIZE,
      );
    }
    const organizationIds = row.audience_organization_ids.length ? row.audience_organization_ids : null;
    // Everyone: every account, also people in no organization (they see it in the app too).
    if (!roles && !organizationIds) return this.users.idsAfter(after, EMAIL_BATCH_SIZE);
    return this.organizations.memberIdsAfter({ organizationIds, roles }, after, EMAIL_BATCH_SIZE);
  }
}
