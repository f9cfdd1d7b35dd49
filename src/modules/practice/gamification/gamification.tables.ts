/* The tables this area owns: only its SQL writes them; another area reads them through a view below
 * (created by a migration, reading only these tables), a port or a method of this area. */
export const OWNED_TABLES: readonly string[] = [
  'activity_days',
  'badge_awards',
  'challenge_participants',
  'challenge_results',
  'challenges',
  'daily_reward_claims',
  'engagement_facts',
  'goals',
  'member_titles',
  'mission_claims',
  'streak_frozen_days',
  'streaks',
  'xp_ledger',
  'xp_totals',
];

/** Views over the tables above that other areas may read. */
export const READ_VIEWS: readonly string[] = ['badge_awards_read', 'xp_ledger_read', 'xp_totals_read'];
