import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { DecoratedMethods } from '@/core/discovery/decorated-methods';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { QUEUE_DRIVER, type QueueDriver } from './drivers/queue-driver';
import { defineJob } from './job-definition';
import { JobHandler, type JobContext } from './job-handler.decorator';
import { JobsService } from './jobs.service';
import {
  definedSchedules,
  isDue,
  minuteOf,
  SCHEDULE_HANDLER,
  type ScheduleContext,
  type ScheduleDefinition,
} from './schedule';

export const RUN_SCHEDULE = defineJob<{ schedule: string; minute: string }>({
  name: 'scheduler.run',
  attempts: 5,
  backoffMs: 5_000,
});

type Handler = (ctx: ScheduleContext) => Promise<void>;

/**
 * The scheduler of section 2.6: one tick per minute (a Bull repeatable job with Redis, a timer without) enqueues
 * each schedule due at that minute as an outbox job whose dedupe key names the schedule and the minute.
 */
@Injectable()
export class SchedulerService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Scheduler');
  private readonly handlers = new Map<string, Handler>();
  private stopTicker?: () => Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(QUEUE_DRIVER) private readonly driver: QueueDriver,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    private readonly decorated: DecoratedMethods,
  ) {}

  onModuleInit(): void {
    for (const { meta: def, handler } of this.decorated.find<ScheduleDefinition>(SCHEDULE_HANDLER)) {
      if (this.handlers.has(def.name)) throw new Error(`Schedule "${def.name}" has two handlers`);
      this.handlers.set(def.name, handler as Handler);
    }
    const missing = [...definedSchedules().keys()].filter((name) => !this.handlers.has(name));
    if (missing.length > 0) throw new Error(`Schedules without a handler: ${missing.join(', ')}`);
  }

  onApplicationBootstrap(): void {
    if (!this.config.processJobs) return;
    this.stopTicker = this.driver.startTicker(() => this.tick(this.clock.now()));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stopTicker?.();
  }

  /** Enqueues every schedule due at the minute of `at`; returns the names enqueued (once per minute, anywhere). */
  async tick(at: Date): Promise<string[]> {
    const minute = minuteOf(at);
    const due = [...definedSchedules().values()].filter((def) => isDue(def, minute));
    for (const def of due) await this.enqueue(def, minute);
    return due.map((d) => d.name);
  }

  /** Runs one schedule for the minute of `at` (tests, and operators re-running a missed tick). */
  async enqueue(def: ScheduleDefinition, at: Date): Promise<string> {
    const minute = minuteOf(at).toISOString();
    return this.jobs.enqueue(
      RUN_SCHEDULE,
      { schedule: def.name, minute },
      { organizationId: null, dedupeKey: `schedule:${def.name}:${minute}` },
    );
  }

  @JobHandler(RUN_SCHEDULE)
  async run(payload: { schedule: string; minute: string }, ctx: JobContext): Promise<void> {
    const handler = this.handlers.get(payload.schedule);
    if (!handler) {
      this.logger.warn({ schedule: payload.schedule }, 'No handler for a scheduled run; skipped');
      return;
    }
    await handler({ scheduledAt: new Date(payload.minute), jobId: ctx.jobId });
  }
}
