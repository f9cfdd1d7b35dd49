import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '@/core/auth/credential';
import { RouteMetadata } from '@/core/auth/route-metadata';
import { BUDGET, type BudgetExemption } from './budgets';
import { BudgetsService } from './budgets.service';

/**
 * Counts every operation not marked `@OutsideBudgets()`/`@OwnBudget()` against the caller's request budget. Runs
 * right after the credential guard (which charges refused credentials itself), before organization, role and
 * step-up checks, so refused requests count too.
 */
@Injectable()
export class BudgetGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly budgets: BudgetsService,
  ) {}

  /** The exemption of each operation, read once: the guard runs on every request. */
  private readonly exemptions = new RouteMetadata(
    (targets) => this.reflector.getAllAndOverride<BudgetExemption | undefined>(BUDGET, targets) ?? null,
  );

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const exemption = this.exemptions.of(context);
    if (exemption) return true;
    const http = context.switchToHttp();
    this.budgets.charge(http.getRequest<AuthenticatedRequest>(), http.getResponse<Response>());
    return true;
  }
}
