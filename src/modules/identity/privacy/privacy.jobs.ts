import { defineJob } from '@/core/queue/job-definition';
import { defineSchedule } from '@/core/queue/schedule';

/** Builds one data export (extensions-v2 17.3): queue `documents`, 3 attempts. */
export const BUILD_EXPORT = defineJob<{ export_id: string; user_id: string }>({
  name: 'privacy.export',
  queue: 'documents',
  attempts: 3,
  backoffMs: 5_000,
});

/**
 * Runs one erasure at its `scheduled_for` (dedupe `privacy.erase:<erasure id>`), resumably: each step commits with
 * its mark, so a retry (or the schedule's next pass) starts at the step that did not finish.
 */
export const ERASE_ACCOUNT = defineJob<{ erasure_id: string }>({
  name: 'privacy.erase_account',
  queue: 'default',
  attempts: 10,
  backoffMs: 5_000,
});

/** The schedules of extensions-v2 26.2. */
export const RUN_DUE_ERASURES = defineSchedule({ name: 'privacy.run_due_erasures', cron: '*/10 * * * *' });
export const ERASURE_REMINDERS = defineSchedule({ name: 'privacy.erasure_reminders', cron: '0 * * * *' });
export const EXPIRE_EXPORTS = defineSchedule({ name: 'privacy.expire_exports', cron: '0 * * * *' });
