import type { JobDefinition } from '../job-definition';

/** Runs one try of a job by id; resolves when it succeeded, rejects (after recording) when it failed. */
export type JobExecutor = (id: string) => Promise<void>;

/**
 * Carries job ids from the outbox to the processors. Bull on Redis when REDIS_URL is set; otherwise an
 * in-process scheduler with the same retry rules.
 */
export interface QueueDriver {
  readonly kind: 'bull' | 'in-process';
  /**
   * Schedules a try of the job `delayMs` from now (the caller computes it from the Clock, the drivers only wait).
   * Must be safe to call again for a job already scheduled.
   */
  dispatch(id: string, def: JobDefinition<unknown>, delayMs: number): Promise<void>;
  /** `dispatch` for many jobs of one kind at once (one round trip where the driver can). */
  dispatchMany(ids: readonly string[], def: JobDefinition<unknown>, delayMs: number): Promise<void>;
  /** Whether the driver still holds the job (queued, delayed or running). */
  holds(id: string, def: JobDefinition<unknown>): Promise<boolean>;
  startProcessing(executor: JobExecutor, definitionOf: (name: string) => JobDefinition<unknown> | undefined): void;
  healthy(): Promise<boolean>;
  /**
   * Calls `onTick` once a minute, at the start of the minute: with Bull, one repeatable job for every instance
   * together (a tick runs in one of them); in process, a timer. Returns a function that stops this process's part.
   */
  startTicker(onTick: () => Promise<unknown>): () => Promise<void>;
  /** Stops taking jobs and waits for the running ones. */
  close(): Promise<void>;
}

export const QUEUE_DRIVER = Symbol('QUEUE_DRIVER');
