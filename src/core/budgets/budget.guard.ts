import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '@/core/auth/credential';
import { BUDGET, type BudgetExemption } from './budgets';
import { BudgetsService } from './budgets.service';

/**
 * Counts every operation not marked `@OutsideBudgets()`/`@OwnBudget()` against the caller's request budget. Runs
 * right after the credential guard (which charges refused credentials itself), before organization, role and
 * step-up checks, so refused requests count too.
 */
@Injectable()
export class BudgetGuard implements CanActivate {
  /** The exemption of each handler, read once: the guard runs on every request. */
  private readonly exemptions = new Map<object, Map<object, BudgetExemption | null>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly budgets: BudgetsService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const [handler, controller] = [context.getHandler(), context.getClass()];
    let ofController = this.exemptions.get(controller);
    if (!ofController) this.exemptions.set(controller, (ofController = new Map<object, BudgetExemption | null>()));
    let exemption = ofController.get(handler);
    if (exemption === undefined) {
      exemption = this.reflector.getAllAndOverride<BudgetExemption | undefined>(BUDGET, [handler, controller]) ?? null;
      ofController.set(handler, exemption);
    }
    if (exemption) return true;
    const http = context.switchToHttp();
    this.budgets.charge(http.getRequest<AuthenticatedRequest>(), http.getResponse<Response>());
    return true;
  }
}
