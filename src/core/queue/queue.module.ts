import { BullModule, getQueueToken } from '@nestjs/bull';
import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { DecoratedMethodsModule } from '@/core/discovery/decorated-methods';
import type { Queue } from 'bull';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { BullDriver } from './drivers/bull.driver';
import { InProcessDriver } from './drivers/in-process.driver';
import { QUEUE_DRIVER, type QueueDriver } from './drivers/queue-driver';
import { JobRegistry } from './job-registry';
import { JobRunner } from './job-runner';
import { JobsRecovery } from './jobs-recovery';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { QUEUE_NAMES } from './queues';
import { SchedulerService } from './scheduler.service';

/** Starts the processors when this process runs jobs, and stops them first at shutdown. */
@Injectable()
class JobsLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(QUEUE_DRIVER) private readonly driver: QueueDriver,
    private readonly runner: JobRunner,
    private readonly registry: JobRegistry,
    private readonly recovery: JobsRecovery,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.processJobs) return;
    this.driver.startProcessing(this.runner.execute, (name) => this.registry.definition(name));
    this.recovery.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.recovery.stop();
    await this.driver.close();
  }
}

@Global()
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig): DynamicModule {
    const useRedis = config.redis.url !== null;
    const driverProvider: Provider = useRedis
      ? {
          provide: QUEUE_DRIVER,
          inject: QUEUE_NAMES.map((name) => getQueueToken(name)),
          useFactory: (...queues: Queue[]) => new BullDriver(new Map(QUEUE_NAMES.map((name, i) => [name, queues[i]]))),
        }
      : { provide: QUEUE_DRIVER, useFactory: () => new InProcessDriver() };
    return {
      module: QueueModule,
      imports: [
        DecoratedMethodsModule,
        ...(useRedis
          ? [
              BullModule.forRoot({
                url: config.redis.url,
                prefix: `${config.redis.keyPrefix}:bull`,
                // A dead worker's job: its lock expires after jobsLockMs; the next two checks move it back.
                settings: {
                  lockDuration: config.jobsLockMs,
                  lockRenewTime: config.jobsLockMs / 2,
                  stalledInterval: config.jobsLockMs,
                  maxStalledCount: 2,
                },
              }),
              BullModule.registerQueue(...QUEUE_NAMES.map((name) => ({ name }))),
            ]
          : []),
      ],
      providers: [
        driverProvider,
        JobsRepository,
        JobsService,
        JobRegistry,
        JobRunner,
        JobsRecovery,
        JobsLifecycle,
        SchedulerService,
      ],
      exports: [JobsService, QUEUE_DRIVER, JobsRecovery, SchedulerService],
    };
  }
}
