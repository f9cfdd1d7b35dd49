import { Global, Module } from '@nestjs/common';
import { MailSuppression } from '@/core/mail/mail.processor';
import { EmailSuppressionsController } from './email-suppressions.controller';
import { EmailSuppressionsService } from './email-suppressions.service';
import { EmailWebhooksController } from './email-webhooks.controller';
import { EmailWebhooksMaintenance } from './email-webhooks.schedules';
import { EmailWebhooksRepository } from './email-webhooks.repository';
import { EmailWebhooksService } from './email-webhooks.service';
import { WebhookSignatures } from './webhook-signatures';

/**
 * Email-provider webhooks and the suppression list (extensions-v2 22). Global because it answers the core
 * `MailSuppression` port: the mail handler in core asks it before every send.
 */
@Global()
@Module({
  controllers: [EmailWebhooksController, EmailSuppressionsController],
  providers: [
    EmailWebhooksRepository,
    WebhookSignatures,
    EmailSuppressionsService,
    EmailWebhooksService,
    EmailWebhooksMaintenance,
    { provide: MailSuppression, useExisting: EmailSuppressionsService },
  ],
  exports: [MailSuppression, EmailSuppressionsService],
})
export class EmailWebhooksModule {}
