/**
 * The gamification area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { ChallengesService } from './challenges.service';
export { LeaderboardsService } from './leaderboards.service';
export { RewardsService } from './rewards.service';
export { StreaksService } from './streaks.service';
export { type Effects, XpLedgerService } from './xp-ledger.service';
export { XpService } from './xp.service';
