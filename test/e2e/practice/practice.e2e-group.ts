import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, [
  'duels',
  'flashcards',
  'games',
  'gamification-challenges',
  'gamification-leaderboard',
  'gamification-profiles',
  'gamification-rewards',
  'gamification-streaks',
  'gamification-xp',
  'practice-embedded',
  'security-learning',
]);
