/**
 * Test support of the gamification area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { EngagementSubscriber } from './gamification.subscribers';
export { LeaderboardStore, LedgerBoards, PostgresLeaderboardStore, RedisLeaderboardStore } from './leaderboard.store';
export { LedgerRepository } from './ledger.repository';
export { StreaksRepository } from './streaks.repository';
export type { AwardCandidate, XpSource } from './xp-rules';
export { levelOf } from './levels';
