/**
 * Test support of the notifications area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { NotificationPipeline } from './notification-pipeline';
export { NotificationJobs } from './notifications-handlers.jobs';
export { NotificationsRealtime } from './notifications-realtime';
export { NotificationsRepository } from './notifications.repository';
export { NotificationSubscribers } from './notifications.subscribers';
export { FcmProvider, NativePushProvider } from './push/fcm.provider';
export { WebPushSender } from './push/web-push-sender';
