import { Injectable, Logger } from '@nestjs/common';
import { defineSchedule, ScheduleHandler } from '@/core/queue/schedule';
import { EmailWebhooksService } from './email-webhooks.service';

/** extensions-v2 26.2: event ids older than 7 days, daily. */
export const PRUNE_EMAIL_WEBHOOK_IDS = defineSchedule({ name: 'email_webhooks.prune_ids', cron: '0 5 * * *' });

@Injectable()
export class EmailWebhooksMaintenance {
  private readonly logger = new Logger('EmailWebhooks');

  constructor(private readonly webhooks: EmailWebhooksService) {}

  @ScheduleHandler(PRUNE_EMAIL_WEBHOOK_IDS)
  async pruneIds(): Promise<void> {
    const deleted = await this.webhooks.pruneEventIds();
    this.logger.log({ deleted }, 'Email webhook ids pruned');
  }
}
