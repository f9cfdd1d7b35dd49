import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEventBatch } from '@/core/events/on-domain-event.decorator';
import type { ActivityKind } from './dto/feed.dto';
import { SocialRepository } from './social.repository';

type ActivityEvent =
  | 'course.completed'
  | 'badge.awarded'
  | 'certificate.issued'
  | 'program.completed'
  | 'level.reached'
  | 'streak.milestone';

/**
 * Activity items of the feed (extensions-v2 11.1), written from the facts' domain events for people who, at that
 * moment, have a public profile and are not minors. One item per event (`source_event_id` is unique, so a
 * redelivery writes nothing). Titles are copied into the item when it is written: the feed reads no other area.
 * The subjects are read through their owners' read views (social.repository.ts).
 * Whether the item is shown is decided again at read time from the person's current profile.
 */
@Injectable()
export class ActivitySubscriber {
  constructor(private readonly repository: SocialRepository) {}

  @OnDomainEventBatch(
    [
      'course.completed',
      'badge.awarded',
      'certificate.issued',
      'program.completed',
      'level.reached',
      'streak.milestone',
    ],
    // A batch: the people's profiles are read once for all (most learners' are not public: nothing else is read).
    { id: 'social.activity_item', size: 200 },
  )
  async onFacts(events: DomainEvent<ActivityEvent>[], ctx: DeliveryContext): Promise<void> {
    const scoped = events.filter((e) => e.organization_id !== null);
    const shown = await this.repository.profilesShown([...new Set(scoped.map((e) => e.payload.user_id))], ctx.tx);
    for (const event of scoped) {
      const organizationId = event.organization_id!;
      const userId = event.payload.user_id;
      if (!shown.has(userId)) continue;
      const item = await this.activityOf(event, organizationId, ctx.tx);
      if (!item) continue;
      await this.repository.insertActivity(
        {
          organizationId,
          userId,
          kind: item.kind,
          activity: item.activity,
          occurredAt: new Date(event.occurred_at),
          eventId: event.id,
        },
        ctx.tx,
      );
    }
  }

  /** The item's kind and fields; null when its subject is gone (a deleted course) or it is a reissue. */
  private async activityOf(
    event: DomainEvent<ActivityEvent>,
    organizationId: string,
    tx: Tx,
  ): Promise<{ kind: ActivityKind; activity: Record<string, unknown> } | null> {
    const subjects = this.repository;
    switch (event.name) {
      case 'course.completed': {
        const { course_id } = (event as DomainEvent<'course.completed'>).payload;
        const title = await subjects.courseTitle(course_id, tx);
        return title === null ? null : { kind: 'course_completed', activity: { course_id, course_title: title } };
      }
      case 'badge.awarded': {
        const { code, user_id } = (event as DomainEvent<'badge.awarded'>).payload;
        const b = await subjects.latestBadge(organizationId, user_id, code, tx);
        return {
          kind: 'badge_earned',
          activity: { badge_code: code, badge_name: b?.name ?? code, icon: b?.icon ?? null },
        };
      }
      case 'certificate.issued': {
        const { certificate_id } = (event as DomainEvent<'certificate.issued'>).payload;
        const c = await subjects.certificate(organizationId, certificate_id, tx);
        // A reissue (a corrected name) is no new achievement.
        if (!c || c.replaces_id) return null;
        return { kind: 'certificate_issued', activity: { certificate_type: c.type, title: c.title } };
      }
      case 'program.completed': {
        const { path_id } = (event as DomainEvent<'program.completed'>).payload;
        const title = await subjects.pathTitle(path_id, tx);
        return title === null ? null : { kind: 'program_completed', activity: { path_id, path_title: title } };
      }
      case 'level.reached':
        return { kind: 'level_reached', activity: { level: (event as DomainEvent<'level.reached'>).payload.level } };
      case 'streak.milestone':
        return {
          kind: 'streak_milestone',
          activity: { streak_days: (event as DomainEvent<'streak.milestone'>).payload.days },
        };
      default:
        return null;
    }
  }
}
