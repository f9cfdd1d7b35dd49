import { performance } from 'node:perf_hooks';
import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { MetricsService } from '@/core/metrics/metrics.service';
import { backoffDelay } from './job-definition';
import { JobRegistry } from './job-registry';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

/** Runs one try of an outbox job and records the outcome. Throws when the try failed (drivers retry). */
@Injectable()
export class JobRunner {
  private readonly logger = new Logger('JobRunner');

  constructor(
    private readonly repository: JobsRepository,
    private readonly registry: JobRegistry,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
  ) {}

  readonly execute = async (id: string): Promise<void> => {
    const row = await this.repository.claim(id);
    if (!row) return; // finished already, or out of tries: nothing to do (idempotent re-delivery)
    const entry = this.registry.get(row.name);
    if (!entry) {
      await this.repository.fail(id, `No handler for job ${row.name}`, true, null, false);
      return;
    }
    // Elapsed time for the log and the metrics: a monotonic measure, not the Clock.
    const started = performance.now();
    try {
      await entry.handle(this.jobs.openPayload(row.payload), {
        jobId: row.id,
        attempt: row.attempts,
        organizationId: row.organization_id,
      });
      await this.repository.complete(id, entry.def.sensitive);
      this.metrics.jobTried(row.queue, row.name, (performance.now() - started) / 1000, null);
      this.logger.debug({ job_id: id, job: row.name, ms: Math.round(performance.now() - started) }, 'Job completed');
    } catch (err) {
      const final = row.attempts >= row.max_attempts;
      const retryAt = final ? null : this.clock.in(backoffDelay(entry.def, row.attempts));
      const message = err instanceof Error ? `${err.name}: ${err.message}` : 'Unknown error';
      await this.repository.fail(id, message, final, retryAt, entry.def.sensitive);
      this.metrics.jobTried(row.queue, row.name, (performance.now() - started) / 1000, { final });
      this.logger[final ? 'error' : 'warn'](
        { job_id: id, job: row.name, attempt: row.attempts, err },
        final ? 'Job failed for good' : 'Job failed; it will be retried',
      );
      throw err;
    }
  };
}
