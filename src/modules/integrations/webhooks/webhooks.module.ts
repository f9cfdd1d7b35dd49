import { Module } from '@nestjs/common';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { WebhookDispatch } from './webhook-dispatch';
import { WebhookSender } from './webhook-sender';
import { WebhooksController } from './webhooks.controller';
import { WebhookDeliveriesPersonalData, WebhookEndpointsPersonalData } from './webhooks.personal-data';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Signed outbound webhooks to integrators (extensions-v2 25.3). Reacts to other areas only through their domain
 * events (the `webhooks.fan_out` batch subscriber); nothing is exported.
 */
@Module({
  imports: [OrganizationsModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    WebhookSender,
    WebhookDispatch,
    WebhooksService,
    WebhookEndpointsPersonalData,
    WebhookDeliveriesPersonalData,
  ],
})
export class WebhooksModule {}
