import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Response } from 'express';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { AuthenticatedRequest } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import type { RateLimitState } from '@/core/rate-limit/rate-limit.service';
import { REDIS } from '@/core/redis/redis.module';
import { BudgetCounter, type BudgetPolicy, type SharedCounts } from './budget-counter';
import { anonymousBudgetKey } from './budgets';

/** How often each instance sends its counts and learns the others' (extensions-v3 4: at least once a second). */
export const RECONCILE_EVERY_MS = 500;
const WINDOW_SECONDS = 60;
const BUDGET_STATE = Symbol('BUDGET_STATE');

type BudgetKind = 'token' | 'session' | 'anonymous';

interface KindPolicy extends BudgetPolicy {
  /** The `RateLimit-Policy` field, the same on every answer. */
  readonly policyField: string;
  /** The policy as route limits describe theirs (compared with them in the `RateLimit` fields). */
  readonly asRateLimit: RateLimitState['policy'];
}

/** Redis as the shared store: one pipeline per reconcile, `INCRBY` and `EXPIRE` per key. */
function redisCounts(redis: Redis, prefix: string): SharedCounts {
  return {
    async add(items) {
      const pipeline = redis.pipeline();
      for (const item of items) {
        pipeline.incrby(`${prefix}:${item.key}`, item.count);
        pipeline.expire(`${prefix}:${item.key}`, item.ttlSeconds);
      }
      const replies = (await pipeline.exec()) ?? [];
      return items.map((_, i) => {
        const [err, total] = replies[i * 2] ?? [new Error('no reply'), null];
        if (err) throw err;
        return Number(total);
      });
    },
  };
}

/**
 * The request budgets of extensions-v3 section 4: every request counts against its credential's budget (a token's,
 * a cookie session's) or, without one, its client address's, besides any route limit. Counted locally and
 * reconciled with Redis every RECONCILE_EVERY_MS (see BudgetCounter); in memory without Redis.
 */
@Injectable()
export class BudgetsService implements OnModuleInit, OnApplicationShutdown {
  private readonly counter: BudgetCounter;
  private readonly policies: Record<BudgetKind, KindPolicy | null>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) redis: Redis | null,
    private readonly clock: Clock,
  ) {
    this.counter = new BudgetCounter(redis ? redisCounts(redis, `${config.redis.keyPrefix}:budget`) : null);
    const policy = (kind: BudgetKind, limit: number): KindPolicy | null =>
      limit > 0
        ? {
            name: `budget.${kind}`,
            limit,
            windowSeconds: WINDOW_SECONDS,
            policyField: `"budget.${kind}";q=${limit};w=${WINDOW_SECONDS}`,
            asRateLimit: { name: `budget.${kind}`, points: limit, durationSeconds: WINDOW_SECONDS, key: 'ip' },
          }
        : null;
    this.policies = {
      token: policy('token', config.budgets.tokenPerMinute),
      session: policy('session', config.budgets.sessionPerMinute),
      anonymous: policy('anonymous', config.budgets.anonymousPerMinute),
    };
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.reconcile(), RECONCILE_EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.reconcile();
  }

  /** Sends this instance's counts and learns every instance's now (the timer does it twice a second). */
  reconcile(): Promise<void> {
    return this.counter.reconcile(this.clock.nowMs());
  }

  /**
   * Counts the request against the budget of its credential (set by the credential guard), or of its client address
   * when it has none; sets the `RateLimit` fields; 429 `too_many_requests` with `Retry-After` once it is spent.
   */
  charge(req: AuthenticatedRequest, res: Response): void {
    const credential = req.credential;
    if (credential?.kind === 'session' && credential.sessionId) {
      this.count(this.policies.session, credential.sessionId, req, res);
    } else if (credential?.tokenId) {
      this.count(this.policies.token, credential.tokenId, req, res);
    } else if (this.policies.anonymous) {
      this.count(this.policies.anonymous, anonymousBudgetKey(req), req, res);
    }
  }

  /** A request whose credential was refused (401) is an anonymous one: it counts against its address. */
  chargeRefused(req: AuthenticatedRequest, res: Response): void {
    if (this.policies.anonymous) this.count(this.policies.anonymous, anonymousBudgetKey(req), req, res);
  }

  private count(policy: KindPolicy | null, id: string, req: AuthenticatedRequest, res: Response): void {
    if (!policy) return;
    const verdict = this.counter.hit(policy, id, this.clock.nowMs());
    const state: RateLimitState = {
      policy: policy.asRateLimit,
      remaining: verdict.remaining,
      resetSeconds: verdict.resetSeconds,
    };
    (req as AuthenticatedRequest & { [BUDGET_STATE]?: RateLimitState })[BUDGET_STATE] = state;
    const field = `"${policy.name}";r=${verdict.remaining};t=${verdict.resetSeconds}`;
    if (!verdict.allowed) {
      throw ApiError.tooManyRequests(verdict.resetSeconds, {
        'RateLimit-Policy': policy.policyField,
        RateLimit: field,
      });
    }
    res.setHeader('RateLimit-Policy', policy.policyField);
    res.setHeader('RateLimit', field);
  }
}

/** What is left of the request's budget, if it counted against one (route limits compare with it). */
export function budgetStateOf(req: object): RateLimitState | undefined {
  return (req as { [BUDGET_STATE]?: RateLimitState })[BUDGET_STATE];
}
