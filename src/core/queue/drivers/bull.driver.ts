import { Logger } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import type { JobDefinition } from '../job-definition';
import { QUEUE_CONCURRENCY, type QueueName } from '../queues';
import type { JobExecutor, QueueDriver } from './queue-driver';

const ADD_TIMEOUT_MS = 3_000;
/** The Bull repeatable job that drives the scheduler; not an outbox job (it only enqueues outbox jobs). */
export const TICK_JOB = 'scheduler.tick';
const TICK_QUEUE: QueueName = 'default';
/** Redis keeps nothing on disk here: the repeatable job is registered again this often (Bull dedupes it). */
const TICK_REREGISTER_MS = 10 * 60_000;
/** A failed tick is tried again within its minute (the tick reads the Clock, so later would be another minute). */
const TICK_ATTEMPTS = 3;
const TICK_RETRY_MS = 5_000;
const PING_TIMEOUT_MS = 1_000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Bull (4.16) names its blocking connection when a handler is set (`setHandler` calls `setWorkerName()`) and drops
 * the promise: a queue closed before Redis answered (a process stopped right after it started) turns
 * "Connection is closed" into an unhandled rejection, which ends a Node process. The naming is unchanged; only
 * its failure goes to `onFailure`.
 */
function handleWorkerNaming(queue: Queue, onFailure: (err: unknown) => void): void {
  const named = queue as Queue & { setWorkerName?: () => Promise<unknown> };
  const setWorkerName = named.setWorkerName?.bind(queue);
  if (!setWorkerName) return;
  named.setWorkerName = () => {
    const pending = setWorkerName();
    pending.catch(onFailure);
    return pending;
  };
}

type BlockingClient = { blocked?: boolean; status: string; disconnect(): void };

/**
 * Closes a queue without Bull's half-second wait. To stop waiting for new jobs, Bull (4.16) sends QUIT on the
 * queue's blocking connection; Redis answers it only after the pending BRPOPLPUSH, which waits up to Bull's drain
 * delay, so Bull gives up after its 500 ms timeout and drops the connection. Every queue of every stopping process
 * paid that (half a second of each shutdown, and of each test app's). A connection blocked in BRPOPLPUSH holds no
 * job: this drops it at once, right after close() has marked the queue closing. Bull's close() still waits for
 * the jobs this process is running. The race is the one Bull's own drop has: a job Redis hands over at that very
 * moment sits in the active list without a lock, and the stalled-job check gives it to a worker again.
 */
function closeQueue(queue: Queue): Promise<void> {
  const closing = queue.close();
  const internals = queue as Queue & { bclientInitialized?: boolean; bclient?: BlockingClient };
  // Reading `bclient` before it exists would open it: Bull creates its connections on first use.
  if (internals.bclientInitialized) {
    const blocking = internals.bclient;
    if (blocking?.blocked && blocking.status === 'ready') blocking.disconnect();
  }
  return closing;
}

/**
 * Bull on Redis: queues shared by every instance; any process with PROCESS_JOBS on (or the worker) runs them.
 * The Bull job id is the outbox row id, so dispatching twice never queues a job twice.
 */
export class BullDriver implements QueueDriver {
  readonly kind = 'bull' as const;
  private readonly logger = new Logger('BullQueue');

  private closing?: Promise<void>;
  private onTick?: () => Promise<unknown>;

  constructor(private readonly queues: ReadonlyMap<QueueName, Queue>) {
    // @nestjs/bull closes each queue in its own shutdown hook and lets a failed close (Redis dropping the
    // connection while a just-started queue is still initializing) fail the whole shutdown. Route those hooks
    // to our close, which waits for running jobs and logs such errors instead.
    for (const queue of queues.values()) {
      (queue as Queue & { onApplicationShutdown?: () => Promise<void> }).onApplicationShutdown = () => this.close();
    }
  }

  async dispatch(id: string, def: JobDefinition<unknown>, delayMs: number): Promise<void> {
    const queue = this.queue(def.queue);
    // Bull has no "add if absent" for a finished job id: the outbox row decides whether it still has to run.
    await withTimeout(
      queue.add(def.name, { id }, this.jobOptions(id, def, delayMs)),
      ADD_TIMEOUT_MS,
      'Adding a job to Redis',
    );
  }

  /** One MULTI for all of them (Bull's addBulk); the job ids are still the outbox ids, so a repeat queues nothing. */
  async dispatchMany(ids: readonly string[], def: JobDefinition<unknown>, delayMs: number): Promise<void> {
    if (ids.length === 0) return;
    const queue = this.queue(def.queue);
    await withTimeout(
      queue.addBulk(ids.map((id) => ({ name: def.name, data: { id }, opts: this.jobOptions(id, def, delayMs) }))),
      ADD_TIMEOUT_MS,
      'Adding jobs to Redis',
    );
  }

  private jobOptions(id: string, def: JobDefinition<unknown>, delayMs: number): JobOptions {
    return {
      jobId: id,
      delay: Math.max(0, delayMs),
      attempts: def.attempts,
      backoff: { type: 'exponential', delay: def.backoffMs },
      removeOnComplete: true,
      removeOnFail: true,
    };
  }

  async holds(id: string, def: JobDefinition<unknown>): Promise<boolean> {
    const job = await withTimeout(this.queue(def.queue).getJob(id), ADD_TIMEOUT_MS, 'Reading a job from Redis');
    return job !== null;
  }

  startProcessing(executor: JobExecutor): void {
    for (const [name, queue] of this.queues) {
      handleWorkerNaming(queue, (err) => this.logger.debug({ err, queue: name }, 'Worker name not set (closing)'));
      queue
        .process('*', QUEUE_CONCURRENCY[name], async (job: { name: string; data: { id: string } }) => {
          if (job.name === TICK_JOB) {
            // Taken before this process's scheduler started (a restart at the minute) or after it stopped: fail,
            // so Bull retries it in a few seconds, here or in another instance, instead of losing the minute.
            if (!this.onTick) throw new Error('The scheduler is not running in this process');
            await this.onTick();
            return;
          }
          await executor(job.data.id);
        })
        .catch((err: unknown) => this.logger.error({ err, queue: name }, 'Queue processing stopped'));
      queue.on('error', (err) => this.logger.error({ err, queue: name }, 'Queue error'));
    }
  }

  startTicker(onTick: () => Promise<unknown>): () => Promise<void> {
    this.onTick = onTick;
    const register = (): void => {
      withTimeout(
        this.queue(TICK_QUEUE).add(
          TICK_JOB,
          {},
          {
            repeat: { cron: '* * * * *', tz: 'UTC' },
            attempts: TICK_ATTEMPTS,
            backoff: { type: 'fixed', delay: TICK_RETRY_MS },
            removeOnComplete: true,
            removeOnFail: true,
          },
        ),
        ADD_TIMEOUT_MS,
        'Registering the scheduler tick',
      ).catch((err: unknown) => this.logger.warn({ err }, 'Could not register the scheduler tick; retrying later'));
    };
    register();
    const timer = setInterval(register, TICK_REREGISTER_MS);
    timer.unref();
    return async () => {
      clearInterval(timer);
      this.onTick = undefined;
      return Promise.resolve();
    };
  }

  async healthy(): Promise<boolean> {
    try {
      const first = this.queues.values().next().value as Queue;
      const pong = await withTimeout(first.client.ping(), PING_TIMEOUT_MS, 'Redis ping');
      return pong === 'PONG';
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    // Bull's close() waits for the jobs this process is running, then disconnects.
    this.closing ??= Promise.allSettled([...this.queues.values()].map((q) => closeQueue(q))).then((results) => {
      for (const r of results) {
        if (r.status === 'rejected') this.logger.warn({ err: r.reason as unknown }, 'A queue did not close cleanly');
      }
    });
    return this.closing;
  }

  private queue(name: QueueName): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`Unknown queue ${name}`);
    return queue;
  }
}
