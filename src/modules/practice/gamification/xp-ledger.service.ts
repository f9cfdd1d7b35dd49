import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import type { Tx } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { localDate } from '@/core/time/local-time';
import { BADGE_THRESHOLDS } from './badge-catalog';
import { LeaderboardStore } from './leaderboard.store';
import {
  type ActivityDelta,
  type BadgeInsert,
  type LedgerInsert,
  LedgerRepository,
  type LedgerRow,
} from './ledger.repository';
import { levelOf } from './levels';
import { StreaksService } from './streaks.service';
import {
  type ActivityFact,
  type AwardCandidate,
  type CountedFact,
  DAILY_CAPS,
  type FactBadge,
  NON_LEARNING_SOURCES,
  type XpSource,
} from './xp-rules';

export interface Effects {
  awards: AwardCandidate[];
  activity: ActivityFact[];
  badges: FactBadge[];
  facts?: CountedFact[];
}

const memberKey = (organizationId: string, userId: string): string => `${organizationId}|${userId}`;

/**
 * Writes XP and everything that follows from it inside the caller's transaction (an event delivery or a claim):
 * ledger rows (once per source key, caps applied in order), totals and levels (`level.reached`), per-day activity,
 * the streak (`streak.milestone`), system badges (`badge.awarded`); the leaderboard cache is told after commit.
 */
@Injectable()
export class XpLedgerService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly streaks: StreaksService,
    private readonly events: DomainEvents,
    private readonly leaderboard: LeaderboardStore,
    private readonly clock: Clock,
  ) {}

  async apply(tx: Tx, effects: Effects): Promise<LedgerRow[]> {
    const now = this.clock.now();
    const people = [...new Set([...effects.awards.map((a) => a.userId), ...effects.activity.map((a) => a.userId)])];
    const zones = await this.ledger.userZones(people, tx);
    const zoneOf = (userId: string): string => zones.get(userId) ?? 'UTC';

    // 1. Ledger rows: skip keys already written, apply the daily caps in order, write for current members.
    const candidates: LedgerInsert[] = effects.awards.map((a) => ({
      ...a,
      localDate: localDate(a.occurredAt, zoneOf(a.userId)),
    }));
    // Only capped sources need to know what is written already (to count the cap); the rest relies on the
    // ledger's unique key (ON CONFLICT DO NOTHING).
    const existing = await this.ledger.existingKeys(
      candidates.filter((c) => DAILY_CAPS[c.source] !== undefined),
      tx,
    );
    const seen = new Set<string>();
    const fresh = candidates.filter((c) => {
      const k = `${c.organizationId}|${c.userId}|${c.source}:${c.sourceId}`;
      if (existing.has(k) || seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    const capped = fresh.filter((c) => DAILY_CAPS[c.source] !== undefined);
    const used = await this.ledger.daySums(capped, tx);
    const rows: LedgerInsert[] = [];
    for (const c of fresh) {
      const cap = DAILY_CAPS[c.source];
      if (cap === undefined) {
        rows.push(c);
        continue;
      }
      const k = `${c.organizationId}|${c.userId}|${c.localDate}|${c.source}`;
      const spent = used.get(k) ?? 0;
      const amount = Math.min(c.amount, cap - spent);
      if (amount <= 0) continue;
      used.set(k, spent + amount);
      rows.push({ ...c, amount });
    }
    const inserted = await this.ledger.insert(rows, now, tx);

    // 2. Totals and levels.
    const adds = new Map<string, { organizationId: string; userId: string; xp: number }>();
    for (const r of inserted) {
      const k = memberKey(r.organization_id, r.user_id);
      const a = adds.get(k) ?? { organizationId: r.organization_id, userId: r.user_id, xp: 0 };
      a.xp += r.amount;
      adds.set(k, a);
    }
    const totals = await this.ledger.addToTotals([...adds.values()], now, tx);
    const levelChanges = totals
      .map((t) => ({ organizationId: t.organization_id, userId: t.user_id, from: t.level, level: levelOf(t.xp) }))
      .filter((t) => t.level !== t.from);
    await this.ledger.setLevels(levelChanges, tx);
    const badges: BadgeInsert[] = effects.badges.map((b) => ({ ...b }));
    await this.events.publishMany(
      tx,
      'level.reached',
      levelChanges
        .filter((c) => c.level > c.from)
        .map((c) => ({
          payload: { user_id: c.userId, level: c.level },
          meta: { organizationId: c.organizationId, actorId: c.userId },
        })),
    );
    for (const c of levelChanges)
      if (c.level >= 10) badges.push({ organizationId: c.organizationId, userId: c.userId, code: 'level_10' });

    // 3. Activity per person, local date and organization.
    const deltas = new Map<string, ActivityDelta>();
    const delta = (organizationId: string, userId: string, date: string): ActivityDelta => {
      const k = `${userId}|${date}|${organizationId}`;
      let d = deltas.get(k);
      if (!d) {
        d = {
          userId,
          organizationId,
          localDate: date,
          xp: 0,
          xpLearning: 0,
          lessons_completed: 0,
          quiz_submissions: 0,
          reviews: 0,
          exams_submitted: 0,
          games_finished: 0,
          duels_finished: 0,
          duels_won: 0,
          active: false,
        };
        deltas.set(k, d);
      }
      return d;
    };
    for (const r of inserted) {
      const d = delta(r.organization_id, r.user_id, r.local_date);
      d.xp += r.amount;
      if (!NON_LEARNING_SOURCES.includes(r.source)) d.xpLearning += r.amount;
      if (r.source === 'lesson')
        badges.push({ organizationId: r.organization_id, userId: r.user_id, code: 'first_lesson' });
      if (r.source === 'exam_pass')
        badges.push({ organizationId: r.organization_id, userId: r.user_id, code: 'exam_passed' });
    }
    for (const f of effects.activity) {
      const d = delta(f.organizationId, f.userId, localDate(f.occurredAt, zoneOf(f.userId)));
      d[f.counter] += 1;
      if (f.active) d.active = true;
    }
    await this.ledger.addActivity([...deltas.values()], tx);
    await this.ledger.addFacts(effects.facts ?? [], tx);

    // 4. Streaks of the people whose day became active.
    const activeDays = new Map<string, { date: string; organizationId: string }[]>();
    for (const d of deltas.values())
      if (d.active)
        activeDays.set(d.userId, [
          ...(activeDays.get(d.userId) ?? []),
          { date: d.localDate, organizationId: d.organizationId },
        ]);
    const reached: { userId: string; days: number; organizationId: string }[] = [];
    const recorded = await this.streaks.recordActivityMany(
      tx,
      [...activeDays.entries()].map(([userId, days]) => ({ userId, zone: zoneOf(userId), days })),
    );
    for (const [userId, { milestones }] of recorded) {
      for (const m of milestones) {
        reached.push({ userId, ...m });
        if (m.days <= 100) badges.push({ organizationId: m.organizationId, userId, code: `streak_${m.days}` });
      }
    }
    await this.events.publishMany(
      tx,
      'streak.milestone',
      reached.map((m) => ({
        payload: { user_id: m.userId, days: m.days },
        meta: { organizationId: m.organizationId, actorId: m.userId },
      })),
    );

    // 5. Counted badges of the members touched by courses, reviews and duel wins.
    const counted = new Map<string, { organizationId: string; userId: string }>();
    for (const r of inserted)
      if (r.source === 'course' || r.source === 'duel')
        counted.set(memberKey(r.organization_id, r.user_id), { organizationId: r.organization_id, userId: r.user_id });
    for (const f of effects.activity)
      if (f.counter === 'reviews' || f.counter === 'duels_won')
        counted.set(memberKey(f.organizationId, f.userId), { organizationId: f.organizationId, userId: f.userId });
    for (const c of await this.ledger.badgeCounts([...counted.values()], tx)) {
      const m = { organizationId: c.organization_id, userId: c.user_id };
      for (const [code, field, target] of BADGE_THRESHOLDS) {
        const value = field === 'courses' ? c.courses : field === 'reviews' ? c.reviews : c.duels_won;
        if (value >= target) badges.push({ ...m, code });
      }
    }
    await this.awardBadges(tx, badges);

    if (inserted.length > 0) {
      const orgZones = await this.ledger.organizationZones([...new Set(inserted.map((r) => r.organization_id))], tx);
      tx.afterCommit(() => this.leaderboard.record(inserted, orgZones));
    }
    return inserted;
  }

  /** Awards system badges (once each) and publishes `badge.awarded` for the new ones. */
  async awardBadges(tx: Tx, badges: readonly BadgeInsert[]): Promise<void> {
    const unique = [...new Map(badges.map((b) => [`${b.organizationId}|${b.userId}|${b.code}`, b])).values()];
    const awarded = await this.ledger.awardBadges(unique, this.clock.now(), tx);
    await this.events.publishMany(
      tx,
      'badge.awarded',
      awarded.map((b) => ({
        payload: { user_id: b.userId, code: b.code, kind: 'system' as const },
        meta: { organizationId: b.organizationId, actorId: b.userId },
      })),
    );
  }

  /** Publishes `badge.awarded` (kind program) for the program badges of these completions that exist. */
  async announceProgramBadges(tx: Tx, badges: readonly BadgeInsert[]): Promise<void> {
    await this.events.publishMany(
      tx,
      'badge.awarded',
      (await this.ledger.existingBadges(badges, tx)).map((b) => ({
        payload: { user_id: b.userId, code: b.code, kind: 'program' as const },
        meta: { organizationId: b.organizationId, actorId: b.userId },
      })),
    );
  }

  /** One award outside an event (daily reward, mission, challenge podium); null when already written. */
  async awardOne(
    tx: Tx,
    award: { organizationId: string; userId: string; source: XpSource; sourceId: string; amount: number },
  ): Promise<LedgerRow | null> {
    const rows = await this.apply(tx, {
      awards: [{ ...award, occurredAt: this.clock.now() }],
      activity: [],
      badges: [],
    });
    return rows[0] ?? null;
  }
}
