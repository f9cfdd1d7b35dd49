import { Logger } from '@nestjs/common';
import { backoffDelay, type JobDefinition } from '../job-definition';
import { QUEUE_CONCURRENCY, type QueueName } from '../queues';
import type { JobExecutor, QueueDriver } from './queue-driver';

interface Pending {
  id: string;
  def: JobDefinition<unknown>;
  attempt: number;
}

/**
 * Runs jobs in this process, off the request path, with the queue's concurrency and exponential backoff.
 * Used without Redis (embedded mode). Jobs are durable in the outbox table, so a restart loses none: the
 * recovery sweep hands unfinished ones back here.
 */
export class InProcessDriver implements QueueDriver {
  readonly kind = 'in-process' as const;
  private readonly logger = new Logger('InProcessQueue');
  private executor?: JobExecutor;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly waiting = new Map<QueueName, Pending[]>();
  private readonly active = new Map<QueueName, number>();
  private closed = false;

  async dispatch(id: string, def: JobDefinition<unknown>, delayMs: number): Promise<void> {
    this.schedule({ id, def, attempt: 1 }, delayMs);
    return Promise.resolve();
  }

  async dispatchMany(ids: readonly string[], def: JobDefinition<unknown>, delayMs: number): Promise<void> {
    for (const id of ids) this.schedule({ id, def, attempt: 1 }, delayMs);
    return Promise.resolve();
  }

  async holds(id: string): Promise<boolean> {
    return Promise.resolve(this.timers.has(id) || this.running.has(id) || this.isWaiting(id));
  }

  startProcessing(executor: JobExecutor): void {
    this.executor = executor;
    for (const queue of this.waiting.keys()) this.pump(queue);
  }

  startTicker(onTick: () => Promise<unknown>): () => Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<unknown> | undefined;
    const arm = (): void => {
      // A real timer on the wall clock's minute boundary (not the Clock): it paces this process, and the
      // scheduler reads the Clock for what each tick means.
      timer = setTimeout(
        () => {
          running = onTick().catch((err: unknown) => this.logger.warn({ err }, 'Scheduler tick failed'));
          arm();
        },
        60_000 - (Date.now() % 60_000),
      );
      timer.unref();
    };
    arm();
    return async () => {
      clearTimeout(timer);
      await running;
    };
  }

  async healthy(): Promise<boolean> {
    return Promise.resolve(!this.closed);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.waiting.clear();
    await Promise.allSettled([...this.running.values()]);
  }

  private schedule(job: Pending, delayMs: number): void {
    if (this.closed || this.timers.has(job.id) || this.running.has(job.id) || this.isWaiting(job.id)) return;
    if (delayMs <= 0) {
      this.enqueue(job);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(job.id);
      this.enqueue(job);
    }, delayMs);
    this.timers.set(job.id, timer);
  }

  private enqueue(job: Pending): void {
    const list = this.waiting.get(job.def.queue) ?? [];
    list.push(job);
    this.waiting.set(job.def.queue, list);
    this.pump(job.def.queue);
  }

  private pump(queue: QueueName): void {
    if (!this.executor || this.closed) return;
    const list = this.waiting.get(queue) ?? [];
    while (list.length > 0 && (this.active.get(queue) ?? 0) < QUEUE_CONCURRENCY[queue]) {
      const job = list.shift()!;
      this.active.set(queue, (this.active.get(queue) ?? 0) + 1);
      // setImmediate keeps the job off the caller's stack (the request that enqueued it).
      const run = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.executor!(job.id))
        .then(
          () => false,
          () => true,
        )
        .then((failed) => {
          this.running.delete(job.id);
          this.active.set(queue, (this.active.get(queue) ?? 1) - 1);
          if (failed && job.attempt < job.def.attempts) {
            this.schedule({ ...job, attempt: job.attempt + 1 }, backoffDelay(job.def, job.attempt));
          }
          this.pump(queue);
        })
        .catch((err: unknown) => this.logger.error({ err }, 'In-process job bookkeeping failed'));
      this.running.set(job.id, run);
    }
  }

  private isWaiting(id: string): boolean {
    for (const list of this.waiting.values()) if (list.some((j) => j.id === id)) return true;
    return false;
  }
}
