import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEventBatch } from '@/core/events/on-domain-event.decorator';
import { StatsRepository, type ActivityDelta } from './stats.repository';

type ActivityEvent =
  | 'lesson.completed'
  | 'quiz.submitted'
  | 'enrollment.created'
  | 'course.completed'
  | 'exam.submitted'
  | 'flashcard.reviewed';

const HOUR = 3_600_000;

/** The counter an event adds one to. */
const COUNTER: Record<ActivityEvent, keyof Omit<ActivityDelta, 'organizationId' | 'userId' | 'hour'>> = {
  'lesson.completed': 'lessons_completed',
  'quiz.submitted': 'quizzes_submitted',
  'enrollment.created': 'enrollments',
  'course.completed': 'completions',
  'exam.submitted': 'exams_submitted',
  'flashcard.reviewed': 'reviews',
};

/**
 * Keeps the statistics' hourly aggregate (extensions-v2 14): one row per organization, person and UTC hour with
 * the counts of their learning facts. Statistics read it (active users per window, series by any local day)
 * instead of the facts. A batch subscriber: a delivery is applied once (the dispatcher filters delivered events),
 * and a batch adds its sums in one statement.
 */
@Injectable()
export class LearningActivitySubscriber {
  constructor(private readonly repository: StatsRepository) {}

  @OnDomainEventBatch(
    [
      'lesson.completed',
      'quiz.submitted',
      'enrollment.created',
      'course.completed',
      'exam.submitted',
      'flashcard.reviewed',
    ],
    { id: 'stats.learning_activity', size: 500 },
  )
  async apply(events: DomainEvent<ActivityEvent>[], ctx: DeliveryContext): Promise<void> {
    const byKey = new Map<string, ActivityDelta>();
    for (const e of events) {
      const userId = (e.payload as { user_id?: string }).user_id;
      if (!e.organization_id || !userId) continue;
      const hour = new Date(Math.floor(new Date(e.occurred_at).getTime() / HOUR) * HOUR);
      const key = `${e.organization_id}|${userId}|${hour.toISOString()}`;
      let delta = byKey.get(key);
      if (!delta) {
        delta = {
          organizationId: e.organization_id,
          userId,
          hour,
          lessons_completed: 0,
          quizzes_submitted: 0,
          quizzes_passed: 0,
          enrollments: 0,
          completions: 0,
          exams_submitted: 0,
          reviews: 0,
        };
        byKey.set(key, delta);
      }
      delta[COUNTER[e.name]]++;
      if (e.name === 'quiz.submitted' && (e.payload as { passed?: boolean }).passed) delta.quizzes_passed++;
    }
    await this.repository.addActivity([...byKey.values()], ctx.tx);
  }
}
