import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { JobRegistry } from './job-registry';
import { JobsRepository } from './jobs.repository';
import { QUEUE_DRIVER, type QueueDriver } from './drivers/queue-driver';

const BATCH = 500;
const KEEP_FINISHED_DAYS = 14;

/**
 * Re-dispatches outbox jobs the driver no longer holds: Redis restarted empty, a process died between commit
 * and dispatch, or the in-process driver restarted. Safe on every instance at once: the driver is asked
 * first, and Bull refuses a second job with the same id. It sweeps every JOBS_LOCK_MS (30 s by default) for jobs
 * untouched for twice that, the same pace at which Bull hands a dead worker's running job to another.
 */
@Injectable()
export class JobsRecovery {
  private readonly logger = new Logger('JobsRecovery');
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<number>;

  constructor(
    private readonly repository: JobsRepository,
    private readonly registry: JobRegistry,
    private readonly clock: Clock,
    @Inject(QUEUE_DRIVER) private readonly driver: QueueDriver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get staleAfterMs(): number {
    return 2 * this.config.jobsLockMs;
  }

  start(): void {
    void this.sweepSafely(0);
    this.timer = setInterval(() => void this.sweepSafely(this.staleAfterMs), this.config.jobsLockMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One pass; returns how many jobs were handed to the driver again. */
  async sweep(staleMs = this.staleAfterMs): Promise<number> {
    await this.repository.failExhausted();
    const rows = await this.repository.findStale(staleMs, BATCH);
    let redispatched = 0;
    for (const row of rows) {
      const def = this.registry.definition(row.name);
      if (!def || (await this.driver.holds(row.id, def))) continue;
      await this.driver.dispatch(row.id, def, Math.max(0, row.run_after.getTime() - this.clock.nowMs()));
      redispatched++;
    }
    if (redispatched > 0) this.logger.warn({ count: redispatched }, 'Re-dispatched jobs the queue had lost');
    await this.repository.pruneFinished(KEEP_FINISHED_DAYS);
    return redispatched;
  }

  private async sweepSafely(staleMs: number): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = this.sweep(staleMs);
    try {
      await this.sweeping;
    } catch (err) {
      this.logger.warn({ err }, 'Recovery sweep failed; it runs again shortly');
    } finally {
      this.sweeping = undefined;
    }
  }
}
