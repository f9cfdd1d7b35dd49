import { defineJob } from '@/core/queue/job-definition';
import { defineSchedule } from '@/core/queue/schedule';

/**
 * One attempt of a delivery (extensions-v2 25.3), dedupe `webhooks.deliver:<delivery_id>:<attempt>`. HTTP failures
 * are recorded and schedule the next attempt as its own job; the job's own tries cover only a crash or a lost
 * database (an attempt already recorded is not made twice).
 */
export const DELIVER = defineJob<{ delivery_id: string; attempt: number }>({
  name: 'webhooks.deliver',
  queue: 'webhooks',
  attempts: 3,
  backoffMs: 5_000,
});

export const DISABLE_FAILING = defineSchedule({ name: 'webhooks.disable_failing', cron: '0 * * * *' });
export const PRUNE_DELIVERIES = defineSchedule({ name: 'webhooks.prune_deliveries', cron: '0 5 * * *' });
