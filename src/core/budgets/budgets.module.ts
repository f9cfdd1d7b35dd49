import { Global, Module } from '@nestjs/common';
import { BudgetGuard } from './budget.guard';
import { BudgetsService } from './budgets.service';

@Global()
@Module({ providers: [BudgetsService, BudgetGuard], exports: [BudgetsService, BudgetGuard] })
export class BudgetsModule {}
