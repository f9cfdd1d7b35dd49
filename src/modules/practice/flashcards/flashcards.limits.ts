import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v3 6.5: reviews, 120 per minute per person (every organization together). */
export const REVIEW_ACCOUNT: RateLimitPolicy = {
  name: 'flashcards.review.account',
  points: 120,
  durationSeconds: 60,
  key: 'account',
};

/**
 * extensions-v3 6.5: changes of the scheduler (or of the retention under FSRS: both reschedule every card of the
 * person), 3 per day per person. Counted by the service, only when the settings change that way; other settings
 * changes are not limited.
 */
export const RESCHEDULE_ACCOUNT: RateLimitPolicy = {
  name: 'flashcards.reschedule.account',
  points: 3,
  durationSeconds: 86_400,
  key: 'account',
};
