import { createHash } from 'node:crypto';
import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** extensions-v2 25.2: the feed, 60 per hour per token (counted by its hash, never the token itself)... */
export const FEED_TOKEN: RateLimitPolicy = {
  name: 'calendar.feed.token',
  points: 60,
  durationSeconds: 3600,
  key: {
    describe: 'feed token',
    from: (req) => {
      const token = (req.params as Record<string, string | undefined>).feed_token;
      return token ? createHash('sha256').update(token).digest('hex') : null;
    },
  },
};

/** ...and 300 per hour per client address. */
export const FEED_IP: RateLimitPolicy = {
  name: 'calendar.feed.ip',
  points: 300,
  durationSeconds: 3600,
  key: 'ip',
};
