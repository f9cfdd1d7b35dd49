import { defineJob } from '@/core/queue/job-definition';

/**
 * extensions-v3 6.5: a change of scheduler reschedules the person's cards here, in batches, not in the request.
 * The person's own work across their organizations, so no organization: the handler re-reads the person's
 * settings and stops when a newer change (another generation) superseded it.
 */
export const RESCHEDULE = defineJob<{ user_id: string; generation: number }>({
  name: 'flashcards.reschedule',
  queue: 'default',
  attempts: 5,
  backoffMs: 2_000,
});
