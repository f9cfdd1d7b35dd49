import { Injectable } from '@nestjs/common';
import { JobHandler } from '@/core/queue/job-handler.decorator';
import { RESCHEDULE } from './flashcards.jobs';
import { FlashcardsService } from './flashcards.service';

/** The background work of flashcards: the rescheduling after a change of scheduler. */
@Injectable()
export class FlashcardJobs {
  constructor(private readonly flashcards: FlashcardsService) {}

  @JobHandler(RESCHEDULE)
  async reschedule(payload: { user_id: string; generation: number }): Promise<void> {
    await this.flashcards.reschedule(payload.user_id, payload.generation);
  }
}
