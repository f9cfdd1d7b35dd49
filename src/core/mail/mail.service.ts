import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import { JobsService } from '@/core/queue/jobs.service';
import { type MailKind, SEND_MAIL } from './mail.jobs';
import { type Locale, type MailTemplate, renderMail } from './mail-template';

export interface SendOptions {
  to: string;
  locale: Locale;
  /** The organization the message is about, or null. */
  organizationId: string | null;
  /** Send only if this transaction commits. */
  tx?: Tx;
  /** Default `transactional`. */
  kind?: MailKind;
  /** The notification category (with kind `notification`). */
  category?: string;
  headers?: Record<string, string>;
  /** Deliver no earlier than this many milliseconds from now (quiet hours). */
  delayMs?: number;
  /** At most one message is ever queued with this key. */
  dedupeKey?: string;
}

/** Composes a message in the recipient's language and queues its delivery. */
@Injectable()
export class MailService {
  constructor(private readonly jobs: JobsService) {}

  async send<P>(template: MailTemplate<P>, params: P, options: SendOptions): Promise<string> {
    const rendered = renderMail(template.render(options.locale, params), options.locale);
    return this.jobs.enqueue(
      SEND_MAIL,
      {
        to: options.to,
        ...rendered,
        template: template.name,
        kind: options.kind ?? 'transactional',
        category: options.category ?? null,
        headers: options.headers,
      },
      {
        organizationId: options.organizationId,
        tx: options.tx,
        delayMs: options.delayMs,
        dedupeKey: options.dedupeKey,
      },
    );
  }

  /**
   * One template to many recipients, each with its own parameters and language: the same messages as `send` once
   * per item, queued with one outbox statement (transactional kind, no delay or dedupe key). Answers the job ids.
   */
  async sendMany<P>(
    template: MailTemplate<P>,
    items: readonly { params: P; to: string; locale: Locale }[],
    options: { organizationId: string | null; tx?: Tx },
  ): Promise<string[]> {
    return this.jobs.enqueueMany(
      SEND_MAIL,
      items.map((item) => ({
        to: item.to,
        ...renderMail(template.render(item.locale, item.params), item.locale),
        template: template.name,
        kind: 'transactional' as const,
        category: null,
        headers: undefined,
      })),
      { organizationId: options.organizationId, tx: options.tx },
    );
  }
}
