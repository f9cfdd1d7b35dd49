import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { SEND_MAIL, type SendMailPayload } from './mail.jobs';

/**
 * Delivers queued messages over SMTP_URL. Without SMTP (development and tests only; production refuses to
 * start) the message is written to the log so a developer can read sign-in codes.
 */
@Injectable()
export class MailProcessor implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter | null;
  private readonly domain: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
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
    });
    this.logger.log({ template: payload.template, job_id: ctx.jobId }, 'Mail sent');
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
