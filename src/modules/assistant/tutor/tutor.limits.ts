import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** Tutor messages (extensions-v2 23.5): 20 per minute and 200 per day per account. */
export const MESSAGES_MINUTE: RateLimitPolicy = {
  name: 'tutor.messages.minute',
  points: 20,
  durationSeconds: 60,
  key: 'account',
};

export const MESSAGES_DAY: RateLimitPolicy = {
  name: 'tutor.messages.day',
  points: 200,
  durationSeconds: 86_400,
  key: 'account',
};

/** Quiz proposals (extensions-v2 23.6): 20 per hour per account. */
export const PROPOSALS_HOUR: RateLimitPolicy = {
  name: 'tutor.quiz_proposals.hour',
  points: 20,
  durationSeconds: 3_600,
  key: 'account',
};
