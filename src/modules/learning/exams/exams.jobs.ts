import { defineJob } from '@/core/queue/job-definition';
import { defineSchedule } from '@/core/queue/schedule';

/**
 * Closes one session at its deadline: queued at the start for `deadline_at + 2 s` (dedupe `exams.close:<id>`), so
 * it exists once, survives restarts in the outbox, and is retried (2 s doubling) if it runs before the Clock says
 * the grace is over.
 */
export const CLOSE_SESSION = defineJob<{ session_id: string; exam_id: string }>({
  name: 'exams.close_session',
  queue: 'default',
  attempts: 10,
  backoffMs: 2_000,
});

/** The safety net of extensions-v2 26.2: sessions past `deadline_at + 2 s` that nothing closed yet. */
export const CLOSE_OVERDUE = defineSchedule({ name: 'exams.close_overdue', cron: '* * * * *' });
