import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEvent, OnDomainEventBatch } from '@/core/events/on-domain-event.decorator';
import { LeaderboardStore } from './leaderboard.store';
import { XpLedgerService } from './xp-ledger.service';
import { effectsOf, LEARNING_EVENTS, type LearningEvent } from './xp-rules';
import type { Effects } from './xp-ledger.service';

/**
 * The engagement area's reactions (extensions-v2 26.1): every learning fact becomes XP, activity, streak and
 * badges in one transaction with its delivery record, so a redelivered event writes nothing; and the ledger's
 * source keys make a second event about the same fact (a repeated pass) write nothing either.
 */
@Injectable()
export class EngagementSubscriber {
  constructor(
    private readonly xp: XpLedgerService,
    private readonly leaderboard: LeaderboardStore,
  ) {}

  @OnDomainEventBatch(LEARNING_EVENTS, { id: 'gamification.engagement', size: 500 })
  async onLearning(events: DomainEvent<LearningEvent>[], ctx: DeliveryContext): Promise<void> {
    const effects: Required<Effects> = { awards: [], activity: [], badges: [], facts: [] };
    for (const event of events) {
      const e = effectsOf(event);
      effects.awards.push(...e.awards);
      effects.activity.push(...e.activity);
      effects.badges.push(...e.badges);
      effects.facts.push(...e.facts);
    }
    await this.xp.apply(ctx.tx, effects);
    // Program badges are written by the paths area with the completion; the event that announces them is ours.
    const programs = events.filter((e) => e.name === 'program.completed' && e.organization_id);
    if (programs.length > 0)
      await this.xp.announceProgramBadges(
        ctx.tx,
        programs.map((e) => {
          const p = (e as DomainEvent<'program.completed'>).payload;
          return { organizationId: e.organization_id!, userId: p.user_id, code: `program-${p.path_id}` };
        }),
      );
  }

  /** Leaving removes the member's ledger rows (cascade): the cached leaderboards of the organization go too. */
  @OnDomainEvent('member.left', { id: 'gamification.member_left' })
  async onMemberLeft(event: DomainEvent<'member.left'>, ctx: DeliveryContext): Promise<void> {
    const org = event.organization_id;
    if (org) ctx.tx.afterCommit(() => this.leaderboard.invalidate(org));
  }
}
