import { defineJob } from '@/core/queue/job-definition';
import { defineSchedule } from '@/core/queue/schedule';

/** Builds one report's file (15.2): queue `documents`, 3 tries, idempotent (it rewrites the file). */
export const GENERATE_REPORT = defineJob<{ report_id: string }>({
  name: 'reports.generate',
  queue: 'documents',
  attempts: 3,
  backoffMs: 5_000,
});

/** Completed reports past `expires_at`: the file goes, the record says `expired` (26.2). */
export const EXPIRE_REPORTS = defineSchedule({ name: 'reports.expire', cron: '0 * * * *' });
