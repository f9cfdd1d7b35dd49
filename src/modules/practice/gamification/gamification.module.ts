import { type DynamicModule, Global, Module } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { EngagementDigest } from '@/core/ports/engagement-digest';
import { REDIS } from '@/core/redis/redis.module';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { MembersModule } from '@/modules/tenancy/members/members.module';
import { ProfileGamification } from '@/modules/tenancy/members';
import { UsersModule } from '@/modules/identity/users/users.module';
import { EngagementSubscriber } from './gamification.subscribers';
import { LeaderboardStore, LedgerBoards, PostgresLeaderboardStore, RedisLeaderboardStore } from './leaderboard.store';
import {
  ActivityPersonalData,
  BadgeAwardsPersonalData,
  ChallengesPersonalData,
  RewardsPersonalData,
  XpPersonalData,
} from './gamification.personal-data';
import { MeEngagementController, MeGoalsController } from './me-engagement.controller';
import { MeEngagementService } from './me-engagement.service';
import { ChallengesController } from './challenges.controller';
import { ChallengesRepository } from './challenges.repository';
import { ChallengesService } from './challenges.service';
import { GamificationController } from './gamification.controller';
import { ProfileGamificationOfGamification } from './profile-gamification';
import { RewardsRepository } from './rewards.repository';
import { RewardsService } from './rewards.service';
import { LeaderboardsService } from './leaderboards.service';
import { LedgerRepository } from './ledger.repository';
import { StreaksRepository } from './streaks.repository';
import { StreaksService } from './streaks.service';
import { XpLedgerService } from './xp-ledger.service';
import { LeaderboardBaselineController, XpController } from './xp.controller';
import { XpService } from './xp.service';
import { EngagementDigestOfGamification } from './engagement-digest';

/**
 * Engagement (extensions-v2 3 and 5): the XP ledger fed by learning events, levels, streaks and activity,
 * leaderboards, badges, titles, missions, daily rewards, goals and challenges. Global because it answers ports
 * of areas it depends on (the notifications' `EngagementDigest`, the colleague profile's gamification block).
 * Exports `StreaksService` and `XpService` for the teacher's student detail (learning/teacher imports it).
 */
@Global()
@Module({
  imports: [UsersModule, CohortsModule, MembersModule, CoursesModule],
  controllers: [XpController, MeEngagementController, MeGoalsController, GamificationController, ChallengesController],
  providers: [
    LedgerRepository,
    StreaksRepository,
    StreaksService,
    XpLedgerService,
    XpService,
    LeaderboardsService,
    MeEngagementService,
    RewardsRepository,
    RewardsService,
    ChallengesRepository,
    ChallengesService,
    LedgerBoards,
    {
      provide: LeaderboardStore,
      inject: [REDIS, APP_CONFIG, LedgerBoards, Clock],
      useFactory: (redis: Redis | null, config: AppConfig, boards: LedgerBoards, clock: Clock): LeaderboardStore =>
        redis ? new RedisLeaderboardStore(redis, config, boards, clock) : new PostgresLeaderboardStore(boards),
    },
    EngagementSubscriber,
    XpPersonalData,
    ActivityPersonalData,
    RewardsPersonalData,
    BadgeAwardsPersonalData,
    ChallengesPersonalData,
    EngagementDigestOfGamification,
    { provide: EngagementDigest, useExisting: EngagementDigestOfGamification },
    ProfileGamificationOfGamification,
    { provide: ProfileGamification, useExisting: ProfileGamificationOfGamification },
  ],
  exports: [EngagementDigest, ProfileGamification, LeaderboardsService, RewardsService, StreaksService, XpService],
})
export class GamificationModule {
  /** With BENCH_ROUTES, also the leaderboard's same-bytes baseline route (bench/README.md); without, nothing more. */
  static forRoot(config: AppConfig): DynamicModule {
    return { module: GamificationModule, controllers: config.benchRoutes ? [LeaderboardBaselineController] : [] };
  }
}
