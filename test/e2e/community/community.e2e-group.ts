import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, [
  'announcements',
  'email-webhooks',
  'notifications',
  'notifications-push',
  'notifications-realtime',
  'social',
  'social-activity',
  'social-embedded',
  'social-moderation',
  'support',
]);
