import { type RateLimitPolicy } from '@/core/rate-limit/rate-limit';

export const CREATE_ACCOUNT: RateLimitPolicy = {
  name: 'support.create.account',
  points: 10,
  durationSeconds: 86_400,
  key: 'account',
};

export const MESSAGE_ACCOUNT: RateLimitPolicy = {
  name: 'support.message.account',
  points: 30,
  durationSeconds: 3600,
  key: 'account',
};
