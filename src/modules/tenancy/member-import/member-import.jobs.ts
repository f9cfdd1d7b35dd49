import { defineJob } from '@/core/queue/job-definition';

export const IMPORT_MEMBERS = defineJob<{ importId: string }>({
  name: 'members.import',
  queue: 'imports',
  attempts: 5,
  backoffMs: 5_000,
});
