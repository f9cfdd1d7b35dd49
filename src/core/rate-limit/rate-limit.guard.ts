import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AuthenticatedRequest } from '@/core/auth/credential';
import { budgetStateOf } from '@/core/budgets/budgets.service';
import { RouteMetadata } from '@/core/auth/route-metadata';
import { requestAddressKey } from './address-key';
import { RATE_LIMITS, type RateLimitPolicy } from './rate-limit';
import { rateLimitHeaders, type RateLimitState, RateLimitService } from './rate-limit.service';
import type { Response } from 'express';

/** Counts every `@RateLimit` policy of the operation; runs after the credential guard. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimitService,
  ) {}

  /** The `@RateLimit` policies of each operation, read once. */
  private readonly policies = new RouteMetadata(
    (targets) => this.reflector.get<RateLimitPolicy[] | undefined>(RATE_LIMITS, targets[0]) ?? [],
  );

  /** Synchronous (no promise) on operations without a limit of their own. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const policies = this.policies.of(context);
    if (policies.length === 0) return true;
    return this.consume(context, policies);
  }

  private async consume(context: ExecutionContext, policies: readonly RateLimitPolicy[]): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const states: RateLimitState[] = [];
    for (const policy of policies) {
      const key = keyOf(policy, req);
      const state = key === null ? null : await this.limits.consume(policy, key);
      if (state) states.push(state);
    }
    const res = context.switchToHttp().getResponse<Response>();
    // One policy is shown: the closest to exhaustion among the route's limits and the request budget.
    const shown = closestToExhaustion(states, budgetStateOf(req));
    for (const [name, value] of Object.entries(rateLimitHeaders(shown ? [shown] : []))) res.setHeader(name, value);
    return true;
  }
}

function keyOf(policy: RateLimitPolicy, req: AuthenticatedRequest): string | null {
  if (policy.key === 'ip') return requestAddressKey(req);
  if (policy.key === 'account') return req.credential?.userId ?? null;
  return policy.key.from(req);
}

/** The state with the fewest requests left (a route limit wins a tie with the budget). */
function closestToExhaustion(states: RateLimitState[], budget: RateLimitState | undefined): RateLimitState | undefined {
  let shown: RateLimitState | undefined;
  for (const state of states) if (!shown || state.remaining < shown.remaining) shown = state;
  if (budget && (!shown || budget.remaining < shown.remaining)) shown = budget;
  return shown;
}
