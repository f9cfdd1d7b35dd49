import type { QueueName } from './queues';

export interface JobDefinition<P> {
  /** Unique name, `<area>.<action>`. */
  readonly name: string;
  readonly queue: QueueName;
  /** Total tries including the first. */
  readonly attempts: number;
  /** First retry delay; each further retry doubles it. */
  readonly backoffMs: number;
  /** Payload holds a secret (an email code, say): encrypted at rest and erased once the job completes. */
  readonly sensitive: boolean;
  /** Phantom field carrying the payload type to `enqueue` and to the handler. */
  readonly __payload?: P;
}

const definitions = new Map<string, JobDefinition<unknown>>();

/** Declares a job. Every declared job must have exactly one `@JobHandler`, or the start fails. */
export function defineJob<P>(def: {
  name: string;
  queue?: QueueName;
  attempts?: number;
  backoffMs?: number;
  sensitive?: boolean;
}): JobDefinition<P> {
  if (definitions.has(def.name)) throw new Error(`Job "${def.name}" is defined twice`);
  const full: JobDefinition<P> = {
    name: def.name,
    queue: def.queue ?? 'default',
    attempts: def.attempts ?? 5,
    backoffMs: def.backoffMs ?? 2_000,
    sensitive: def.sensitive ?? false,
  };
  definitions.set(def.name, full);
  return full;
}

export function definedJobs(): ReadonlyMap<string, JobDefinition<unknown>> {
  return definitions;
}

/** Delay before try number `attempt + 1` (attempt counts from 1). */
export function backoffDelay(def: JobDefinition<unknown>, attempt: number): number {
  return def.backoffMs * 2 ** Math.max(0, attempt - 1);
}
