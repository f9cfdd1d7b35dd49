import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { ApiError } from '@/core/http/api-error';
import { REDIS } from '@/core/redis/redis.module';
import type { RateLimitPolicy } from './rate-limit';

/** What is left of one policy's quota for the caller. */
export interface RateLimitState {
  readonly policy: RateLimitPolicy;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

function stateOf(policy: RateLimitPolicy, res: RateLimiterRes): RateLimitState {
  return {
    policy,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * The IETF `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers: structured-field
 * lists, one item per policy: quota `q` per window `w` seconds; remaining `r`, reset in `t` seconds).
 */
export function rateLimitHeaders(states: readonly RateLimitState[]): Record<string, string> {
  if (states.length === 0) return {};
  return {
    'RateLimit-Policy': states
      .map((s) => `"${s.policy.name}";q=${s.policy.points};w=${s.policy.durationSeconds}`)
      .join(', '),
    RateLimit: states.map((s) => `"${s.policy.name}";r=${s.remaining};t=${s.resetSeconds}`).join(', '),
  };
}

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

  /**
   * Counts one hit of `key` against `policy`; throws 429 `too_many_requests` once the limit is passed (with the
   * `RateLimit` fields of the policy). Returns what is left, or null when the store failed (the request goes on).
   */
  async consume(policy: RateLimitPolicy, key: string, points = 1): Promise<RateLimitState | null> {
    try {
      const res = await this.limiter(policy).consume(key, points);
      return stateOf(policy, res);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw ApiError.tooManyRequests(rejection.msBeforeNext / 1000, rateLimitHeaders([stateOf(policy, rejection)]));
      }
      // The store failed and the insurance limiter too: fail open rather than lock everyone out.
      this.logger.error({ err: rejection, policy: policy.name }, 'Rate limiter failed');
      return null;
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
