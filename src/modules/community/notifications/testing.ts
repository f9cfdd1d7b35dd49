/**
 * Test support of the notifications area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { NotificationJobs } from './notifications-handlers.jobs';
export { NotificationSubscribers } from './notifications.subscribers';
export { WebPushSender } from './push/web-push-sender';
