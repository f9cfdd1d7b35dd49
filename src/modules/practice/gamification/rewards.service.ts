import { Injectable } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import type { Locale } from '@/core/mail/mail-template';
import {
  addDays,
  endOfLocalDate,
  isoWeekBounds,
  isoWeekKey,
  localDate,
  startOfLocalDate,
} from '@/core/time/local-time';
import { UsersService } from '@/modules/identity/users';
import { MISSIONS, type MissionDef, SYSTEM_BADGES, TITLES } from './badge-catalog';
import type {
  GamificationBadgeDto,
  BadgeListDto,
  CurrentTitleDto,
  DailyRewardClaimDto,
  DailyRewardDto,
  MissionClaimDto,
  MissionDto,
  MissionListDto,
  TitleListDto,
} from './dto/gamification.dto';
import { LedgerRepository } from './ledger.repository';
import { levelOf } from './levels';
import { RewardsRepository } from './rewards.repository';
import { StreaksService } from './streaks.service';
import { StreaksRepository } from './streaks.repository';
import { XpLedgerService } from './xp-ledger.service';

const DAY_MS = 86_400_000;

interface MissionPeriod {
  key: string;
  start: Date;
  end: Date;
  from: string;
  to: string;
}

/** Badges, titles, missions and the daily reward of a member (extensions-v2 5.2-5.5, 5.7). */
@Injectable()
export class RewardsService {
  constructor(
    private readonly rewards: RewardsRepository,
    private readonly ledger: LedgerRepository,
    private readonly xp: XpLedgerService,
    private readonly streaks: StreaksService,
    private readonly streakDays: StreaksRepository,
    private readonly users: UsersService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  private async locale(userId: string): Promise<Locale> {
    return (await this.users.getById(userId)).locale;
  }

  private async zone(userId: string): Promise<string> {
    return (await this.ledger.userZones([userId])).get(userId) ?? 'UTC';
  }

  // Badges (5.2).

  /**
   * Awards the badge of a program the member completed (the paths area claims it with the completion, in its
   * transaction); a repeated claim awards nothing.
   */
  async awardProgramBadge(
    member: { organizationId: string; userId: string },
    pathId: string,
    badge: { name: string; icon: string | null },
    now: Date,
    tx: Tx,
  ): Promise<void> {
    await this.rewards.awardProgramBadge(member.organizationId, member.userId, pathId, badge, now, tx);
  }

  async badges(member: Membership): Promise<BadgeListDto> {
    const { organizationId: org, userId } = member;
    const [locale, earned, counts, streak] = await Promise.all([
      this.locale(userId),
      this.rewards.earnedBadges(org, userId),
      this.rewards.counts(org, userId),
      this.streaks.currentOf([userId], this.clock.now()),
    ]);
    const byCode = new Map(earned.map((b) => [b.code, b]));
    const current = streak.get(userId)?.current ?? 0;
    const value: Record<string, number> = {
      first_lesson: counts.lessons,
      first_course: counts.courses,
      five_courses: counts.courses,
      exam_passed: counts.exams,
      streak_7: current,
      streak_30: current,
      streak_100: current,
      reviews_100: counts.reviews,
      reviews_1000: counts.reviews,
      first_duel_win: counts.duels_won,
      duels_10: counts.duels_won,
      level_10: counts.xp,
    };
    const items: GamificationBadgeDto[] = SYSTEM_BADGES.map((b) => {
      const got = byCode.get(b.code);
      return {
        code: b.code,
        kind: 'system',
        name: b.name[locale],
        description: b.description[locale],
        icon: b.icon,
        earned: got !== undefined,
        earned_at: got ? new Date(got.awarded_at).toISOString() : null,
        progress:
          b.target === null
            ? null
            : { current: got ? b.target : Math.min(value[b.code] ?? 0, b.target), target: b.target },
      };
    });
    for (const b of earned.filter((x) => x.kind === 'program'))
      items.push({
        code: b.code,
        kind: 'program',
        name: b.name,
        description:
          (locale === 'es' ? 'Programa completado' : 'Program completed') + (b.path_title ? `: ${b.path_title}` : ''),
        icon: b.icon,
        earned: true,
        earned_at: new Date(b.awarded_at).toISOString(),
        progress: null,
      });
    return { items };
  }

  // Titles (5.3).

  private async unlocked(org: string, userId: string): Promise<Set<string>> {
    const [counts, earned] = await Promise.all([
      this.rewards.counts(org, userId),
      this.rewards.earnedBadges(org, userId),
    ]);
    const level = levelOf(counts.xp);
    const badges = new Set(earned.map((b) => b.code));
    return new Set(
      TITLES.filter((t) =>
        t.requirement.type === 'level' ? level >= Number(t.requirement.value) : badges.has(String(t.requirement.value)),
      ).map((t) => t.code),
    );
  }

  async titles(member: Membership): Promise<TitleListDto> {
    const [locale, unlocked, current] = await Promise.all([
      this.locale(member.userId),
      this.unlocked(member.organizationId, member.userId),
      this.rewards.currentTitle(member.organizationId, member.userId),
    ]);
    return {
      current,
      items: TITLES.map((t) => ({
        code: t.code,
        name: t.name[locale],
        unlocked: unlocked.has(t.code),
        requirement: { type: t.requirement.type, value: t.requirement.value },
      })),
    };
  }

  async setTitle(member: Membership, code: string | null): Promise<CurrentTitleDto> {
    if (code !== null) {
      if (!TITLES.some((t) => t.code === code))
        throw ApiError.validation([{ field: 'code', message: 'code is not a title' }]);
      if (!(await this.unlocked(member.organizationId, member.userId)).has(code))
        throw ApiError.conflict('title_locked', 'This title is not unlocked yet.');
    }
    await this.rewards.setTitle(member.organizationId, member.userId, code, this.clock.now());
    return { current: code };
  }

  // Missions (5.4).

  private period(def: MissionDef, at: Date, zone: string): MissionPeriod {
    if (def.period === 'day') {
      const key = localDate(at, zone);
      return { key, start: startOfLocalDate(key, zone), end: endOfLocalDate(key, zone), from: key, to: key };
    }
    const key = isoWeekKey(at, zone);
    const { start, end } = isoWeekBounds(key, zone);
    const from = localDate(start, zone);
    return { key, start, end, from, to: addDays(from, 6) };
  }

  private periodOfKey(def: MissionDef, key: string, zone: string): MissionPeriod | null {
    if (def.period === 'day') {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(key)) return null;
      const start = startOfLocalDate(key, zone);
      if (Number.isNaN(start.getTime()) || localDate(start, zone) !== key) return null;
      return { key, start, end: endOfLocalDate(key, zone), from: key, to: key };
    }
    if (!/^\d{4}-W\d{2}$/.test(key)) return null;
    const { start, end } = isoWeekBounds(key, zone);
    if (Number.isNaN(start.getTime()) || isoWeekKey(start, zone) !== key) return null;
    const from = localDate(start, zone);
    return { key, start, end, from, to: addDays(from, 6) };
  }

  private async mission(
    member: Membership,
    def: MissionDef,
    p: MissionPeriod,
    locale: Locale,
    claimed: boolean,
  ): Promise<MissionDto> {
    const sums = await this.streakDays.daySums(member.userId, p.from, p.to, member.organizationId);
    const progress = Math.min(def.target, sums[def.counts]);
    return {
      id: `${def.code}-${p.key}`,
      code: def.code,
      period: def.period,
      period_key: p.key,
      title: def.title[locale],
      description: def.description[locale],
      target: def.target,
      progress,
      completed: progress >= def.target,
      claimed,
      reward_xp: def.reward,
      ends_at: p.end.toISOString(),
      claimable_until: new Date(p.end.getTime() + DAY_MS).toISOString(),
    };
  }

  async missions(member: Membership): Promise<MissionListDto> {
    const [locale, zone] = await Promise.all([this.locale(member.userId), this.zone(member.userId)]);
    const now = this.clock.now();
    const current = MISSIONS.map((def) => ({ def, p: this.period(def, now, zone) }));
    const previous = MISSIONS.map((def) => {
      const p = this.period(def, new Date(this.period(def, now, zone).start.getTime() - 1), zone);
      return { def, p };
    }).filter(({ p }) => now.getTime() < p.end.getTime() + DAY_MS);
    const claimed = await this.rewards.claimedMissions(
      member.organizationId,
      member.userId,
      [...current, ...previous].map(({ def, p }) => `${def.code}-${p.key}`),
    );
    const items: MissionDto[] = [];
    for (const { def, p } of current)
      items.push(await this.mission(member, def, p, locale, claimed.has(`${def.code}-${p.key}`)));
    for (const { def, p } of previous) {
      if (claimed.has(`${def.code}-${p.key}`)) continue;
      const m = await this.mission(member, def, p, locale, false);
      if (m.completed) items.push(m);
    }
    return { items };
  }

  async claimMission(member: Membership, missionId: string): Promise<MissionClaimDto> {
    const m = /^([a-z0-9_]+)-(\d{4}-\d{2}-\d{2}|\d{4}-W\d{2})$/.exec(missionId);
    const def = m ? MISSIONS.find((d) => d.code === m[1]) : undefined;
    if (!m || !def) throw ApiError.notFound();
    const [locale, zone] = await Promise.all([this.locale(member.userId), this.zone(member.userId)]);
    const p = this.periodOfKey(def, m[2], zone);
    const now = this.clock.now();
    if (!p || p.start > now || now.getTime() >= p.end.getTime() + DAY_MS) throw ApiError.notFound();
    const mission = await this.mission(member, def, p, locale, false);
    const claimedBefore = await this.rewards.claimedMissions(member.organizationId, member.userId, [mission.id]);
    if (claimedBefore.has(mission.id))
      throw ApiError.conflict('mission_already_claimed', 'The mission was already claimed.');
    if (!mission.completed) throw ApiError.conflict('mission_not_completed', 'The mission’s goal is not reached yet.');
    const awarded = await this.transactions.run(async (tx) => {
      const ok = await this.rewards.claimMission(member.organizationId, member.userId, mission.id, def.reward, now, tx);
      if (!ok) throw ApiError.conflict('mission_already_claimed', 'The mission was already claimed.');
      const row = await this.xp.awardOne(tx, {
        organizationId: member.organizationId,
        userId: member.userId,
        source: 'mission',
        sourceId: mission.id,
        amount: def.reward,
      });
      return row?.amount ?? 0;
    });
    return {
      mission: { ...mission, claimed: true },
      xp: { awarded, total: await this.ledger.total(member.organizationId, member.userId) },
    };
  }

  // Daily reward (5.5).

  async dailyReward(member: Membership): Promise<DailyRewardDto> {
    const zone = await this.zone(member.userId);
    const now = this.clock.now();
    const today = localDate(now, zone);
    const yesterday = addDays(today, -1);
    const claims = await this.rewards.dailyClaims(member.organizationId, member.userId, [today, yesterday]);
    const todays = claims.get(today);
    if (todays !== undefined)
      return {
        claimed_today: true,
        consecutive_days: todays,
        next_amount: amountFor(todays + 1),
        next_claim_at: endOfLocalDate(today, zone).toISOString(),
      };
    const run = claims.get(yesterday) ?? 0;
    return {
      claimed_today: false,
      consecutive_days: run,
      next_amount: amountFor(run + 1),
      next_claim_at: now.toISOString(),
    };
  }

  async claimDailyReward(member: Membership): Promise<DailyRewardClaimDto> {
    const zone = await this.zone(member.userId);
    const now = this.clock.now();
    const today = localDate(now, zone);
    const yesterday = addDays(today, -1);
    return this.transactions.run(async (tx) => {
      const claims = await this.rewards.dailyClaims(member.organizationId, member.userId, [yesterday], tx);
      const consecutive = (claims.get(yesterday) ?? 0) + 1;
      const amount = amountFor(consecutive);
      const ok = await this.rewards.claimDaily(
        member.organizationId,
        member.userId,
        today,
        consecutive,
        amount,
        now,
        tx,
      );
      if (!ok) throw ApiError.conflict('daily_reward_already_claimed', 'Today’s reward was already claimed.');
      await this.xp.awardOne(tx, {
        organizationId: member.organizationId,
        userId: member.userId,
        source: 'daily_reward',
        sourceId: today,
        amount,
      });
      return {
        amount,
        consecutive_days: consecutive,
        xp_total: await this.ledger.total(member.organizationId, member.userId, tx),
      };
    });
  }
}

/** `5 * min(consecutive_days, 5)`. */
function amountFor(consecutive: number): number {
  return 5 * Math.min(consecutive, 5);
}
