import { defineJob } from '@/core/queue/job-definition';

/** One AI quiz proposal (extensions-v2 23.6): platform work, so the job acts for no organization. */
export const QUIZ_PROPOSAL = defineJob<{ proposalId: string }>({
  name: 'ai.quiz_proposal',
  queue: 'ai',
  attempts: 3,
  backoffMs: 5_000,
});
