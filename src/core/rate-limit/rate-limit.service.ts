import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
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
export class RateLimitService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  /**
   * The limiters' own connection (a duplicate of the shared one, same settings), with ioredis auto-pipelining: the
   * scripts of concurrent requests leave in one write and their answers come back in one read. Each request still
   * runs its own script, atomic in Redis, so every limit stays exact and shared by all instances. Not on the shared
   * connection: an auto-pipeline is created with the scripts its connection knows at that moment, and a script
   * defined later in the same turn (a first use) would find no method on it (ioredis then misaligns the answers).
   * Here every command comes from a limiter, whose constructor defines its script before its first command.
   */
  private readonly redis: Redis | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) shared: Redis | null,
  ) {
    this.redis = shared ? shared.duplicate({ enableAutoPipelining: true }) : null;
    this.redis?.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'Redis connection error'));
  }

  /** Waits (at most 5 s) for the connection, so the first requests count in Redis rather than in the fallback. */
  async onModuleInit(): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        redis.off('ready', done);
        redis.off('error', done);
        resolve();
      };
      const timer = setTimeout(done, 5_000);
      redis.once('ready', done);
      redis.once('error', done);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis && this.redis.status !== 'end') await this.redis.quit().catch(() => this.redis?.disconnect());
  }

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
