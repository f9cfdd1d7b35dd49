import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { ApiError } from '@/core/http/api-error';
import { REDIS } from '@/core/redis/redis.module';
import type { RateLimitPolicy } from './rate-limit';

/**
 * Counters for named limits: in Redis (shared by every instance) when configured, with an in-memory
 * fallback while Redis is unreachable; in memory otherwise.
 */
@Injectable()
export class RateLimitService {
  private readonly logger = new Logger('RateLimit');
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  /** Counts one hit of `key` against `policy`; throws 429 `too_many_requests` once the limit is passed. */
  async consume(policy: RateLimitPolicy, key: string, points = 1): Promise<void> {
    try {
      await this.limiter(policy).consume(key, points);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw ApiError.tooManyRequests(rejection.msBeforeNext / 1000);
      // The store failed and the insurance limiter too: fail open rather than lock everyone out.
      this.logger.error({ err: rejection, policy: policy.name }, 'Rate limiter failed');
    }
  }

  /** Whether `key` is currently over the limit, without counting a hit. */
  async isLimited(policy: RateLimitPolicy, key: string): Promise<number | null> {
    const res = await this.limiter(policy)
      .get(key)
      .catch(() => null);
    return res && res.consumedPoints >= policy.points ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : null;
  }

  async reset(policy: RateLimitPolicy, key: string): Promise<void> {
    await this.limiter(policy)
      .delete(key)
      .catch(() => undefined);
  }

  private limiter(policy: RateLimitPolicy): RateLimiterAbstract {
    let limiter = this.limiters.get(policy.name);
    if (limiter) return limiter;
    const base = {
      keyPrefix: `${this.config.redis.keyPrefix}:rl:${policy.name}`,
      points: policy.points,
      duration: policy.durationSeconds,
    };
    limiter = this.redis
      ? new RateLimiterRedis({ ...base, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(base) })
      : new RateLimiterMemory(base);
    this.limiters.set(policy.name, limiter);
    return limiter;
  }
}
