import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { type MailKind, SEND_MAIL, type SendMailPayload } from './mail.jobs';

/**
 * Whether an address must not receive a message of this kind (the suppression list of extensions-v2 22.3, kept
 * by the email-webhooks area). Without it, nothing is suppressed.
 */
export abstract class MailSuppression {
  abstract isSuppressed(address: string, kind: MailKind): Promise<boolean>;
}

/**
 * Erased accounts keep a tombstone address under the reserved top-level domain `invalid` (RFC 2606): never mailed,
 * whatever its case or a trailing dot.
 */
export function isReservedInvalidAddress(address: string): boolean {
  const domain = address
    .slice(address.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
  return domain === 'invalid' || domain.endsWith('.invalid');
}

/**
 * Delivers queued messages over SMTP_URL. Without SMTP (development and tests only; production refuses to
 * start) the message is written to the log so a developer can read sign-in codes.
 */
@Injectable()
export class MailProcessor implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter | null;
  private readonly domain: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(MailSuppression) private readonly suppression: MailSuppression | null,
  ) {
    // Pooled: a burst of messages (an import's invitations) reuses a few SMTP connections instead of one each.
    this.transport = config.mail.smtpUrl
      ? createTransport({ url: config.mail.smtpUrl, pool: true, maxConnections: 4 })
      : null;
    this.domain = new URL(config.baseUrl).hostname;
  }

  @JobHandler(SEND_MAIL)
  async send(payload: SendMailPayload, ctx: JobContext): Promise<void> {
    // The job id makes the Message-ID: a retried delivery is recognisably the same message.
    const messageId = `<${ctx.jobId}@${this.domain}>`;
    const kind = payload.kind ?? 'transactional';
    if (isReservedInvalidAddress(payload.to)) {
      this.logger.log({ template: payload.template, job_id: ctx.jobId, outcome: 'erased' }, 'Mail skipped');
      return;
    }
    if (this.suppression && (await this.suppression.isSuppressed(payload.to, kind))) {
      this.logger.log({ template: payload.template, job_id: ctx.jobId, outcome: 'suppressed' }, 'Mail suppressed');
      return;
    }
    if (!this.transport) {
      this.logger.log(
        { mail_to: payload.to, subject: payload.subject, template: payload.template, body: payload.text },
        'Mail (no SMTP_URL: written to the log instead of sent)',
      );
      return;
    }
    await this.transport.sendMail({
      from: this.config.mail.from,
      to: payload.to,
      subject: payload.subject,
      text: payload.text,
      html: payload.html,
      messageId,
      headers: payload.headers,
    });
    this.logger.log({ template: payload.template, job_id: ctx.jobId }, 'Mail sent');
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
