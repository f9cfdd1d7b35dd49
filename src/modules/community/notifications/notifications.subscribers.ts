import { Injectable } from '@nestjs/common';
import { JobsService } from '@/core/queue/jobs.service';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEvent, OnDomainEventBatch } from '@/core/events/on-domain-event.decorator';
import { NEW_COURSE_BATCH } from './notifications.jobs';
import { NotificationPipeline, type NotifySpec } from './notification-pipeline';
import { NotificationsRepository } from './notifications.repository';

/**
 * The domain events of extensions-v2 26.1 that become notifications (13.1). Each reaction runs in the delivery's
 * transaction and keys its notification on the event id, so a redelivered event creates nothing twice.
 */
@Injectable()
export class NotificationSubscribers {
  constructor(
    private readonly pipeline: NotificationPipeline,
    private readonly repository: NotificationsRepository,
    private readonly jobs: JobsService,
  ) {}

  @OnDomainEvent('course.completed', { id: 'notifications.course_complete' })
  async courseCompleted(event: DomainEvent<'course.completed'>, ctx: DeliveryContext): Promise<void> {
    const { user_id, course_id } = event.payload;
    const title = (await this.repository.courseTitle(course_id, ctx.tx)) ?? '';
    await this.pipeline.notify(
      {
        userId: user_id,
        organizationId: event.organization_id,
        category: 'course_complete',
        sourceKey: event.id,
        path: `/courses/${course_id}`,
        data: { course_id },
        content: { category: 'course_complete', course_title: title },
      },
      ctx.tx,
    );
  }

  /**
   * A batch: badges come in bursts (every learner's first lesson earns one), so the people and organizations of a
   * claim are read once and its deliveries recorded in one transaction.
   */
  @OnDomainEventBatch('badge.awarded', { id: 'notifications.badge_earned', size: 200 })
  async badgesAwarded(events: DomainEvent<'badge.awarded'>[], ctx: DeliveryContext): Promise<void> {
    await this.pipeline.notifyMany(events.map(badgeEarned), ctx.tx);
  }

  /** One event's notification (as `badgesAwarded` gives it). */
  async badgeAwarded(event: DomainEvent<'badge.awarded'>, ctx: DeliveryContext): Promise<void> {
    await this.pipeline.notify(badgeEarned(event), ctx.tx);
  }

  /** Members of every organization that sees the course, in jobs of 500 (13.1). */
  @OnDomainEvent('course.published', { id: 'notifications.new_course' })
  async coursePublished(event: DomainEvent<'course.published'>, ctx: DeliveryContext): Promise<void> {
    await this.jobs.enqueue(
      NEW_COURSE_BATCH,
      { event_id: event.id, course_id: event.payload.course_id, after: null },
      { organizationId: null, tx: ctx.tx, dedupeKey: `new-course:${event.id}:start` },
    );
  }

  @OnDomainEvent(['duel.challenged', 'duel.answered'], { id: 'notifications.duels' })
  async duel(event: DomainEvent<'duel.challenged' | 'duel.answered'>, ctx: DeliveryContext): Promise<void> {
    const p = event.payload as { duel_id: string; challenger_id: string; opponent_id: string; answer?: string };
    const challenged = event.name === 'duel.challenged';
    await this.pipeline.notify(
      {
        userId: challenged ? p.opponent_id : p.challenger_id,
        organizationId: event.organization_id,
        category: 'duels',
        sourceKey: event.id,
        path: `/duels/${p.duel_id}`,
        data: { duel_id: p.duel_id },
        content: {
          category: 'duels',
          kind: challenged ? 'challenged' : p.answer === 'accepted' ? 'accepted' : 'declined',
        },
      },
      ctx.tx,
    );
  }

  @OnDomainEvent('comment.created', { id: 'notifications.social_comment' })
  async commented(event: DomainEvent<'comment.created'>, ctx: DeliveryContext): Promise<void> {
    const { post_id, author_id, post_author_id } = event.payload;
    if (author_id === post_author_id) return; // one's own comment
    await this.pipeline.notify(
      {
        userId: post_author_id,
        organizationId: event.organization_id,
        category: 'social',
        sourceKey: event.id,
        path: `/feed/posts/${post_id}`,
        data: { post_id },
        content: { category: 'social', kind: 'comment' },
      },
      ctx.tx,
    );
  }

  @OnDomainEvent('moderation.decided', { id: 'notifications.social_moderation' })
  async moderated(event: DomainEvent<'moderation.decided'>, ctx: DeliveryContext): Promise<void> {
    const { item_type, item_id, action, author_id, warn_author } = event.payload;
    if (action !== 'remove' && !warn_author) return; // an approval tells the author nothing
    await this.pipeline.notify(
      {
        userId: author_id,
        organizationId: event.organization_id,
        category: 'social',
        sourceKey: event.id,
        path: '/feed',
        data: item_type === 'post' ? { post_id: item_id } : { comment_id: item_id },
        content: { category: 'social', kind: action === 'remove' ? 'removed' : 'warned' },
      },
      ctx.tx,
    );
  }

  @OnDomainEvent('exam.reviewed', { id: 'notifications.exams_reviewed' })
  async examReviewed(event: DomainEvent<'exam.reviewed'>, ctx: DeliveryContext): Promise<void> {
    const p = event.payload;
    await this.pipeline.notify(
      {
        userId: p.user_id,
        organizationId: event.organization_id,
        category: 'exams',
        sourceKey: event.id,
        path: `/courses/${p.course_id}/exams/${p.exam_id}/sessions/${p.session_id}`,
        data: { session_id: p.session_id, exam_id: p.exam_id, course_id: p.course_id },
        content: { category: 'exams', kind: 'reviewed', passed: p.passed, voided: p.decision === 'void' },
      },
      ctx.tx,
    );
  }

  /** Only a session closed at its deadline: the learner who submitted knows already (13.1). */
  @OnDomainEvent('exam.submitted', { id: 'notifications.exams_closed' })
  async examClosed(event: DomainEvent<'exam.submitted'>, ctx: DeliveryContext): Promise<void> {
    const p = event.payload;
    if (p.submitted_by !== 'deadline') return;
    await this.pipeline.notify(
      {
        userId: p.user_id,
        organizationId: event.organization_id,
        category: 'exams',
        sourceKey: event.id,
        path: `/courses/${p.course_id}/exams/${p.exam_id}/sessions/${p.session_id}`,
        data: { session_id: p.session_id, exam_id: p.exam_id, course_id: p.course_id },
        content: { category: 'exams', kind: 'closed', passed: p.passed, voided: false },
      },
      ctx.tx,
    );
  }

  @OnDomainEvent('support.replied', { id: 'notifications.support' })
  async supportReplied(event: DomainEvent<'support.replied'>, ctx: DeliveryContext): Promise<void> {
    const { ticket_id, user_id } = event.payload;
    await this.pipeline.notify(
      {
        userId: user_id,
        organizationId: event.organization_id,
        category: 'support',
        sourceKey: event.id,
        path: `/support/tickets/${ticket_id}`,
        data: { ticket_id },
        content: { category: 'support' },
      },
      ctx.tx,
    );
  }

  @OnDomainEvent('report.finished', { id: 'notifications.reports' })
  async reportFinished(event: DomainEvent<'report.finished'>, ctx: DeliveryContext): Promise<void> {
    const { report_id, status, requested_by } = event.payload;
    await this.pipeline.notify(
      {
        userId: requested_by,
        organizationId: event.organization_id,
        category: 'reports',
        sourceKey: event.id,
        path: event.organization_id ? `/organizations/${event.organization_id}/reports/${report_id}` : '/reports',
        data: { report_id },
        content: { category: 'reports', status },
      },
      ctx.tx,
    );
  }
}

function badgeEarned(event: DomainEvent<'badge.awarded'>): NotifySpec {
  const { user_id, code } = event.payload;
  return {
    userId: user_id,
    organizationId: event.organization_id,
    category: 'badge_earned',
    sourceKey: event.id,
    path: '/profile/badges',
    data: { badge_code: code },
    content: { category: 'badge_earned', badge_code: code },
  };
}
