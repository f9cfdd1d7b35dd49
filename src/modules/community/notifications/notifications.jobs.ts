import { defineJob } from '@/core/queue/job-definition';
import { defineSchedule } from '@/core/queue/schedule';

/** One web push of a notification (or a test push, `notification_id` null) to one subscription. */
export const DELIVER_PUSH = defineJob<{ subscription_id: string; notification_id: string | null; user_id: string }>({
  name: 'notifications.deliver_push',
  queue: 'notifications',
  attempts: 5,
  backoffMs: 5_000,
});

/** One native push through FCM to one device. */
export const DELIVER_FCM = defineJob<{ device_id: string; notification_id: string | null; user_id: string }>({
  name: 'notifications.deliver_fcm',
  queue: 'notifications',
  attempts: 5,
  backoffMs: 5_000,
});

/** One batch (500 people) of the new_course fan-out, then the next batch. */
export const NEW_COURSE_BATCH = defineJob<{ event_id: string; course_id: string; after: string | null }>({
  name: 'notifications.new_course_batch',
  queue: 'notifications',
});

/** One batch of a scheduled category (streak reminders, weekly summaries) for the people of one page. */
export const SCHEDULED_BATCH = defineJob<{
  kind: 'streak_reminder' | 'weekly_summary';
  at: string;
  after: string | null;
}>({ name: 'notifications.scheduled_batch', queue: 'notifications' });

export const STREAK_REMINDERS = defineSchedule({ name: 'notifications.streak_reminders', cron: '*/15 * * * *' });
export const WEEKLY_SUMMARIES = defineSchedule({ name: 'notifications.weekly_summaries', cron: '*/15 * * * *' });
export const PRUNE = defineSchedule({ name: 'notifications.prune', cron: '0 4 * * *' });
