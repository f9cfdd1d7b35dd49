import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { addDays, localDate } from '@/core/time/local-time';
import { LedgerRepository } from './ledger.repository';
import {
  currentStreak,
  evaluate,
  FREEZES_CAP,
  recordActive,
  STREAK_MILESTONES,
  type StreakState,
} from './streak-rules';
import { StreaksRepository } from './streaks.repository';

export interface StreakView {
  current: number;
  longest: number;
  today_active: boolean;
  at_risk: boolean;
  freezes_available: number;
  freezes_cap: number;
  last_active_on: string | null;
  time_zone: string;
  frozen_on: string[];
}

/**
 * The streak (extensions-v2 3.4), evaluated when activity is recorded and when it is read, in the person's zone
 * at that moment (so a change of zone moves "today", never the dates already recorded).
 */
@Injectable()
export class StreaksService {
  constructor(
    private readonly streaks: StreaksRepository,
    private readonly ledger: LedgerRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  /**
   * Records newly active local dates of many people (the activity rows are already written in `tx`) in a fixed
   * number of statements (their rows locked in id order), and answers per person the milestones reached, each with
   * the organization of the fact that extended the streak.
   */
  async recordActivityMany(
    tx: Tx,
    people: readonly { userId: string; zone: string; days: readonly { date: string; organizationId: string }[] }[],
  ): Promise<Map<string, { current: number; milestones: { days: number; organizationId: string }[] }>> {
    const now = this.clock.now();
    const out = new Map<string, { current: number; milestones: { days: number; organizationId: string }[] }>();
    const states = await this.streaks.lockMany(
      people.map((p) => p.userId),
      now,
      tx,
    );
    const moved: {
      userId: string;
      zone: string;
      before: string | null;
      state: StreakState;
      fresh: (typeof people)[number]['days'];
    }[] = [];
    for (const p of people) {
      const state = states.get(p.userId)!;
      const fresh = [...p.days]
        .filter((d) => state.lastActiveOn === null || d.date > state.lastActiveOn)
        .sort((a, b) => (a.date < b.date ? -1 : 1));
      if (fresh.length === 0) {
        out.set(p.userId, { current: 0, milestones: [] });
        continue;
      }
      let next = state;
      for (const d of fresh) next = recordActive(next, d.date);
      moved.push({ userId: p.userId, zone: p.zone, before: state.lastActiveOn, state: next, fresh });
    }
    const active = await this.streaks.activeDatesMany(
      moved.map((m) => ({ userId: m.userId, from: lowest(m.state) })),
      tx,
    );
    const saves: { userId: string; state: StreakState; frozen: string[] }[] = [];
    for (const m of moved) {
      const today = localDate(now, m.zone);
      const days = active.get(m.userId)!;
      const { state: evaluated, frozen } = evaluate(m.state, today, (d) => days.has(d));
      const current = currentStreak(evaluated, today, days.has(today));
      evaluated.longest = Math.max(evaluated.longest, current);
      saves.push({ userId: m.userId, state: evaluated, frozen });
      const milestones: { days: number; organizationId: string }[] = [];
      const todays = m.fresh.find((d) => d.date === today);
      if (todays && m.before !== today && (STREAK_MILESTONES as readonly number[]).includes(current))
        milestones.push({ days: current, organizationId: todays.organizationId });
      out.set(m.userId, { current, milestones });
    }
    await this.streaks.saveMany(saves, now, tx);
    return out;
  }

  /** The streak as read (evaluating the days that passed since). */
  async view(userId: string): Promise<StreakView> {
    const zone = (await this.ledger.userZones([userId])).get(userId) ?? 'UTC';
    const now = this.clock.now();
    const today = localDate(now, zone);
    return this.transactions.run(async (tx) => {
      const state = await this.streaks.lock(userId, now, tx);
      const active = await this.streaks.activeDates(userId, lowest(state), tx);
      const { state: evaluated, frozen } = evaluate(state, today, (d) => active.has(d));
      const todayActive = active.has(today);
      const current = currentStreak(evaluated, today, todayActive);
      evaluated.longest = Math.max(evaluated.longest, current);
      await this.streaks.save(userId, evaluated, frozen, now, tx);
      return {
        current,
        longest: evaluated.longest,
        today_active: todayActive,
        at_risk: current > 0 && !todayActive,
        freezes_available: evaluated.freezes,
        freezes_cap: FREEZES_CAP,
        last_active_on: evaluated.lastActiveOn,
        time_zone: zone,
        frozen_on: await this.streaks.frozenDates(userId, addDays(today, -59), today, tx),
      };
    });
  }

  /** Current streaks of many people at `at` without writing (the digest's reminder check). */
  async currentOf(
    userIds: readonly string[],
    at: Date,
  ): Promise<Map<string, { current: number; todayActive: boolean }>> {
    const zones = await this.ledger.userZones(userIds);
    const states = await this.streaks.findMany(userIds);
    const out = new Map<string, { current: number; todayActive: boolean }>();
    for (const id of userIds) {
      const state = states.get(id);
      if (!state) {
        out.set(id, { current: 0, todayActive: false });
        continue;
      }
      const today = localDate(at, zones.get(id) ?? 'UTC');
      const active = await this.streaks.activeDates(id, lowest(state));
      const { state: evaluated } = evaluate(state, today, (d) => active.has(d));
      out.set(id, { current: currentStreak(evaluated, today, active.has(today)), todayActive: active.has(today) });
    }
    return out;
  }
}

/** The earliest date an evaluation may look at. */
function lowest(state: StreakState): string | null {
  return state.evaluatedThrough ?? state.firstActiveOn;
}
