import type { Request } from 'express';
import ipaddr from 'ipaddr.js';
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

/**
 * The anonymous budget's key for a client address: IPv4 as is (an IPv4-mapped IPv6 address as its IPv4), IPv6 by
 * its /64, the block one subscriber gets, so rotating addresses inside it shares one budget.
 */
export function budgetAddressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  if (ip.startsWith('::ffff:') && ip.includes('.')) return ip.slice(7);
  try {
    const parts = ipaddr.IPv6.parse(ip).parts.slice(0, 4);
    return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    return ip;
  }
}

/** The client address of a request (after TRUST_PROXY), as the anonymous budget keys it. */
export function anonymousBudgetKey(req: Request): string {
  return budgetAddressKey(req.ip);
}
