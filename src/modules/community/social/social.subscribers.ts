import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEvent } from '@/core/events/on-domain-event.decorator';
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
 * Whether the item is shown is decided again at read time from the person's current profile.
 */
@Injectable()
export class ActivitySubscriber {
  constructor(private readonly repository: SocialRepository) {}

  @OnDomainEvent(
    [
      'course.completed',
      'badge.awarded',
      'certificate.issued',
      'program.completed',
      'level.reached',
      'streak.milestone',
    ],
    { id: 'social.activity_item' },
  )
  async onFact(event: DomainEvent<ActivityEvent>, ctx: DeliveryContext): Promise<void> {
    const organizationId = event.organization_id;
    if (!organizationId) return;
    const userId = event.payload.user_id;
    if (!(await this.shownNow(userId, ctx.tx))) return;
    const item = await this.activityOf(event, organizationId, ctx.tx);
    if (!item) return;
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

  private async shownNow(userId: string, tx: Tx): Promise<boolean> {
    const rows = await tx.manager.query<{ shown: boolean }[]>(
      `SELECT public_profile AND age_bracket IS DISTINCT FROM 'under_18' AS shown FROM users WHERE id = $1`,
      [userId],
    );
    return rows[0]?.shown === true;
  }

  /** The item's kind and fields; null when its subject is gone (a deleted course) or it is a reissue. */
  private async activityOf(
    event: DomainEvent<ActivityEvent>,
    organizationId: string,
    tx: Tx,
  ): Promise<{ kind: ActivityKind; activity: Record<string, unknown> } | null> {
    const one = async <T>(sql: string, params: unknown[]): Promise<T | null> =>
      (await tx.manager.query<T[]>(sql, params))[0] ?? null;
    switch (event.name) {
      case 'course.completed': {
        const { course_id } = (event as DomainEvent<'course.completed'>).payload;
        const c = await one<{ title: string }>(`SELECT title FROM courses WHERE id = $1`, [course_id]);
        return c && { kind: 'course_completed', activity: { course_id, course_title: c.title } };
      }
      case 'badge.awarded': {
        const { code, user_id } = (event as DomainEvent<'badge.awarded'>).payload;
        // badge_awards.code is added by the gamification area; read through to_jsonb so that this reads either way.
        const b = await one<{ name: string; icon: string | null }>(
          `SELECT name, icon FROM badge_awards b WHERE organization_id = $1 AND user_id = $2
             AND to_jsonb(b) ->> 'code' = $3 ORDER BY awarded_at DESC LIMIT 1`,
          [organizationId, user_id, code],
        );
        return {
          kind: 'badge_earned',
          activity: { badge_code: code, badge_name: b?.name ?? code, icon: b?.icon ?? null },
        };
      }
      case 'certificate.issued': {
        const { certificate_id } = (event as DomainEvent<'certificate.issued'>).payload;
        const c = await one<{ type: string; title: string; replaces_id: string | null }>(
          `SELECT type, title, replaces_id FROM issued_certificates WHERE id = $1 AND organization_id = $2`,
          [certificate_id, organizationId],
        );
        // A reissue (a corrected name) is no new achievement.
        if (!c || c.replaces_id) return null;
        return { kind: 'certificate_issued', activity: { certificate_type: c.type, title: c.title } };
      }
      case 'program.completed': {
        const { path_id } = (event as DomainEvent<'program.completed'>).payload;
        const p = await one<{ title: string }>(`SELECT title FROM learning_paths WHERE id = $1`, [path_id]);
        return p && { kind: 'program_completed', activity: { path_id, path_title: p.title } };
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
