import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEvent } from '@/core/events/on-domain-event.decorator';
import { ProgressService } from './progress.service';

/**
 * Course completion waits for the required exams (extensions-v2 9.8): when a session closes passed, or a review
 * accepts one, the enrollment completes (and its certificate is issued) if that was the last requirement. Progress
 * reacts to the exams' events instead of being called by them, so neither area imports the other.
 */
@Injectable()
export class ExamCompletionSubscriber {
  constructor(private readonly progress: ProgressService) {}

  @OnDomainEvent(['exam.submitted', 'exam.reviewed'], { id: 'progress.complete_after_exam' })
  async onExamResult(event: DomainEvent<'exam.submitted' | 'exam.reviewed'>, ctx: DeliveryContext): Promise<void> {
    // A fail, a void, or a pass still awaiting review (the requirement check counts only passes that stand).
    if (!event.payload.passed || !event.organization_id) return;
    await this.progress.completeAfterExam(
      event.organization_id,
      event.payload.user_id,
      event.payload.course_id,
      event.occurred_at,
      event.actor_id,
      ctx.tx,
    );
  }
}
