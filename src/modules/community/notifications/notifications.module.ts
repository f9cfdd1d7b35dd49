import { Module } from '@nestjs/common';
import { UsersModule } from '@/modules/identity/users/users.module';
import { NotificationJobs } from './notifications-handlers.jobs';
import { NotificationPipeline } from './notification-pipeline';
import { NotificationSubscribers } from './notifications.subscribers';
import { NotificationsGateway } from './notifications.gateway';
import { NotificationsRealtime } from './notifications-realtime';
import { NotificationPreferencesController, NotificationsController } from './notifications.controller';
import {
  NotificationPreferencesPersonalData,
  NotificationsPersonalData,
  PushTargetsPersonalData,
} from './notifications.personal-data';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';
import { FcmProvider, NativePushProvider } from './push/fcm.provider';
import { PushController } from './push/push.controller';
import { PushService } from './push/push.service';
import { WebPushSender } from './push/web-push-sender';
import { UnsubscribeController } from './unsubscribe.controller';
import { UnsubscribeService } from './unsubscribe.service';

/**
 * Notifications and push (extensions-v2 13): the inbox, preferences and quiet hours, the pipeline from domain
 * events, notification email with one-click unsubscribe, web push (VAPID) and native push (FCM HTTP v1).
 */
@Module({
  imports: [UsersModule],
  controllers: [UnsubscribeController, NotificationsController, NotificationPreferencesController, PushController],
  providers: [
    NotificationsRepository,
    NotificationsService,
    NotificationsRealtime,
    NotificationsGateway,
    NotificationPipeline,
    NotificationSubscribers,
    NotificationJobs,
    UnsubscribeService,
    PushService,
    WebPushSender,
    { provide: NativePushProvider, useClass: FcmProvider },
    NotificationsPersonalData,
    NotificationPreferencesPersonalData,
    PushTargetsPersonalData,
  ],
})
export class NotificationsModule {}
