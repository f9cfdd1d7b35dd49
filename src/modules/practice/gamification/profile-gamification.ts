import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import type { Locale } from '@/core/mail/mail-template';
import { type ProfileGamificationDto, ProfileGamification } from '@/modules/tenancy/members';
import { SYSTEM_BADGES, TITLES } from './badge-catalog';
import { levelOf } from './levels';
import { RewardsRepository } from './rewards.repository';
import { StreaksService } from './streaks.service';

/** The gamification block of the colleague profile (extensions-v2 3.1), for the organization of the path. */
@Injectable()
export class ProfileGamificationOfGamification extends ProfileGamification {
  constructor(
    private readonly rewards: RewardsRepository,
    private readonly streaks: StreaksService,
    private readonly clock: Clock,
  ) {
    super();
  }

  async of(organizationId: string, userId: string, locale: Locale): Promise<ProfileGamificationDto> {
    const [counts, title, earned, streak] = await Promise.all([
      this.rewards.counts(organizationId, userId),
      this.rewards.currentTitle(organizationId, userId),
      this.rewards.earnedBadges(organizationId, userId),
      this.streaks.currentOf([userId], this.clock.now()),
    ]);
    const titleDef = title ? TITLES.find((t) => t.code === title) : undefined;
    return {
      xp: counts.xp,
      level: levelOf(counts.xp),
      title: titleDef ? { code: titleDef.code, name: titleDef.name[locale] } : null,
      streak_current: streak.get(userId)?.current ?? 0,
      badges: earned.slice(0, 6).map((b) => {
        const system = b.kind === 'system' ? SYSTEM_BADGES.find((s) => s.code === b.code) : undefined;
        return {
          code: b.code,
          name: system ? system.name[locale] : b.name,
          icon: system ? system.icon : b.icon,
          earned_at: new Date(b.awarded_at).toISOString(),
        };
      }),
    };
  }
}
