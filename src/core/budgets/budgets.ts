import { requestAddressKey } from '@/core/rate-limit/address-key';
import type { Request } from 'express';
import { accessDecorator } from '@/core/auth/access.decorators';

export const BUDGET = Symbol('BUDGET');

/**
 * How an operation stands to the request budgets (extensions-v3 4): `none` for probes and metrics (outside every
 * budget), `own` for operations whose credentials have their own limits (SCIM and LTI service tokens: they declare
 * `@RateLimit` keyed by their token instead). Unmarked operations count against the caller's budget.
 */
export type BudgetExemption = 'none' | 'own';

/** Probes and metrics: no budget, no `RateLimit` fields. */
export const OutsideBudgets = (): MethodDecorator & ClassDecorator =>
  accessDecorator(BUDGET, 'none' satisfies BudgetExemption, 'x-budget', 'none');

/**
 * Operations whose credentials are limited by their own rules (`@RateLimit` on the operation, keyed by the service
 * token): the budgets of tokens, sessions and addresses do not count them.
 */
export const OwnBudget = (): MethodDecorator & ClassDecorator =>
  accessDecorator(BUDGET, 'own' satisfies BudgetExemption, 'x-budget', 'own');

/** The client address of a request (after TRUST_PROXY), as the anonymous budget keys it. */
export function anonymousBudgetKey(req: Request): string {
  return requestAddressKey(req);
}
