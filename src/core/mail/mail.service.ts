import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import { JobsService } from '@/core/queue/jobs.service';
import { SEND_MAIL } from './mail.jobs';
import { type Locale, type MailTemplate, renderMail } from './mail-template';

export interface SendOptions {
  to: string;
  locale: Locale;
  /** The organization the message is about, or null. */
  organizationId: string | null;
  /** Send only if this transaction commits. */
  tx?: Tx;
}

/** Composes a message in the recipient's language and queues its delivery. */
@Injectable()
export class MailService {
  constructor(private readonly jobs: JobsService) {}

  async send<P>(template: MailTemplate<P>, params: P, options: SendOptions): Promise<string> {
    const rendered = renderMail(template.render(options.locale, params), options.locale);
    return this.jobs.enqueue(
      SEND_MAIL,
      { to: options.to, ...rendered, template: template.name },
      { organizationId: options.organizationId, tx: options.tx },
    );
  }
}
