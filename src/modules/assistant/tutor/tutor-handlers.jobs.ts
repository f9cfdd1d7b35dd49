import { Injectable } from '@nestjs/common';
import { type JobContext, JobHandler } from '@/core/queue/job-handler.decorator';
import { QUIZ_PROPOSAL } from './tutor.jobs';
import { QuizProposalsService } from './quiz-proposals.service';

@Injectable()
export class QuizProposalsProcessor {
  constructor(private readonly proposals: QuizProposalsService) {}

  @JobHandler(QUIZ_PROPOSAL)
  async handle(payload: { proposalId: string }, ctx: JobContext): Promise<void> {
    try {
      await this.proposals.run(payload.proposalId, ctx.attempt);
    } catch (err) {
      // Out of tries: the proposal is reported failed rather than left running for ever.
      if (ctx.attempt >= QUIZ_PROPOSAL.attempts) await this.proposals.markFailed(payload.proposalId);
      throw err;
    }
  }
}
