import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import type { AppConfig } from '@/config/app-config';
import { ConfigModule } from '@/config/config.module';
import { AuditModule } from './audit/audit.module';
import { AuthCoreModule } from './auth/auth-core.module';
import { BudgetGuard } from './budgets/budget.guard';
import { BudgetsModule } from './budgets/budgets.module';
import { CredentialGuard } from './auth/credential.guard';
import { OrgScopeGuard } from './auth/org-scope.guard';
import { StepUpGuard } from './auth/step-up.guard';
import { CacheModule } from './cache/cache.module';
import { ClockModule } from './clock/clock.module';
import { CryptoModule } from './crypto/crypto.module';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { FilesModule } from './files/files.module';
import { ErrorEnvelopeFilter } from './http/exception.filter';
import { ShutdownModule } from './http/shutdown';
import { createValidationPipe } from './http/validation';
import { LoggingModule } from './logging/logging.module';
import { MailModule } from './mail/mail.module';
import { MetricsModule } from './metrics/metrics.module';
import { NetModule } from './net/net.module';
import { PrivacyCoreModule } from './privacy/privacy-core.module';
import { QueueModule } from './queue/queue.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RealtimeModule } from './realtime/realtime.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';

/** The cross-cutting machinery every area uses, plus the global filter, pipe and guards. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        ClockModule,
        CryptoModule,
        DatabaseModule,
        MetricsModule,
        NetModule,
        RedisModule,
        CacheModule,
        QueueModule.forRoot(config),
        EventsModule,
        PrivacyCoreModule,
        FilesModule,
        RateLimitModule,
        BudgetsModule,
        MailModule,
        AuditModule,
        AuthCoreModule,
        RealtimeModule,
        ShutdownModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        // Order matters: who is calling and their request budget, where (organization and role), what they may do,
        // then how often this operation.
        { provide: APP_GUARD, useExisting: CredentialGuard },
        { provide: APP_GUARD, useExisting: BudgetGuard },
        { provide: APP_GUARD, useExisting: OrgScopeGuard },
        { provide: APP_GUARD, useExisting: StepUpGuard },
        { provide: APP_GUARD, useExisting: RateLimitGuard },
      ],
    };
  }
}
