import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import type { Tx } from '@/core/database/transaction';
import { definedJobs, type JobDefinition } from './job-definition';
import { JobsRepository, type OutboxRow } from './jobs.repository';
import { QUEUE_DRIVER, type QueueDriver } from './drivers/queue-driver';

export interface EnqueueOptions {
  /** The organization the job acts for, or null for platform-level work. Always stated, never implied. */
  organizationId: string | null;
  /** Enqueue as part of this transaction: the job exists only if it commits, and is dispatched after. */
  tx?: Tx;
  delayMs?: number;
  /**
   * When the job is due, when the caller knows it as an instant (a deadline): stored exactly, instead of "now + a delay"
   * computed from a second clock read that may be a millisecond later. Wins over `delayMs`.
   */
  runAt?: Date;
  /** At most one job ever exists with this key (a second enqueue returns the first job's id). */
  dedupeKey?: string;
}

/** Sealed payloads of sensitive jobs are stored as `{"$sealed": "<AES-GCM>"}`. */
export interface SealedPayload {
  $sealed: string;
}

/**
 * Enqueues background work. The job is first written to the outbox table (in the caller's transaction when
 * given), then handed to the driver; the recovery sweep re-dispatches anything the driver lost.
 */
@Injectable()
export class JobsService implements OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly dispatching = new Set<Promise<void>>();

  constructor(
    private readonly repository: JobsRepository,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    @Inject(QUEUE_DRIVER) private readonly driver: QueueDriver,
  ) {}

  async enqueue<P>(def: JobDefinition<P>, payload: P, options: EnqueueOptions): Promise<string> {
    if (definedJobs().get(def.name) !== def) throw new Error(`Job "${def.name}" was not declared with defineJob`);
    const now = this.clock.nowMs();
    const runAt = options.runAt ?? new Date(now + Math.max(0, options.delayMs ?? 0));
    const delayMs = Math.max(0, runAt.getTime() - now);
    const stored: unknown = def.sensitive
      ? ({ $sealed: this.crypto.encrypt(JSON.stringify(payload)) } satisfies SealedPayload)
      : payload;
    const { id, inserted } = await this.repository.insert(
      {
        queue: def.queue,
        name: def.name,
        organizationId: options.organizationId,
        payload: stored,
        maxAttempts: def.attempts,
        runAfter: runAt,
        dedupeKey: options.dedupeKey ?? null,
      },
      options.tx?.manager,
    );
    if (!inserted) return id;
    const dispatch = (): void => this.dispatchInBackground(id, def, delayMs);
    if (options.tx) options.tx.afterCommit(dispatch);
    else dispatch();
    return id;
  }

  /**
   * Enqueues many jobs of one kind with one outbox statement and, once the transaction commits (at once
   * without one), one hand-off to the driver. Same guarantees as `enqueue` for each job; no dedupe keys.
   * Answers the job ids in the order of `payloads`.
   */
  async enqueueMany<P>(
    def: JobDefinition<P>,
    payloads: readonly P[],
    options: Omit<EnqueueOptions, 'dedupeKey'>,
  ): Promise<string[]> {
    if (definedJobs().get(def.name) !== def) throw new Error(`Job "${def.name}" was not declared with defineJob`);
    if (payloads.length === 0) return [];
    const delayMs = Math.max(0, options.delayMs ?? 0);
    const ids = payloads.map(() => randomUUID());
    await this.repository.insertMany(
      {
        ids,
        queue: def.queue,
        name: def.name,
        organizationId: options.organizationId,
        payloads: payloads.map((payload) =>
          def.sensitive
            ? ({ $sealed: this.crypto.encrypt(JSON.stringify(payload)) } satisfies SealedPayload)
            : (payload as unknown),
        ),
        maxAttempts: def.attempts,
        runAfter: this.clock.in(delayMs),
      },
      options.tx?.manager,
    );
    const dispatch = (): void => this.dispatchManyInBackground(ids, def, delayMs);
    if (options.tx) options.tx.afterCommit(dispatch);
    else dispatch();
    return ids;
  }

  /** Decodes a stored payload (unsealing sensitive ones). */
  openPayload(stored: unknown): unknown {
    if (stored && typeof stored === 'object' && '$sealed' in stored) {
      return JSON.parse(this.crypto.decrypt((stored as SealedPayload).$sealed)) as unknown;
    }
    return stored;
  }

  /** Outbox rows not finished or failed for good, for operators (`GET /api/v1/admin/jobs`). */
  outbox(filter: {
    statuses: readonly OutboxRow['status'][];
    queue?: string;
    limit: number;
    offset: number;
  }): Promise<{ rows: OutboxRow[]; total: number }> {
    return this.repository.listOutbox(filter);
  }

  /** Waits for every dispatch this process started (used at shutdown and by tests). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.dispatching]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  private dispatchManyInBackground(ids: readonly string[], def: JobDefinition<unknown>, delayMs: number): void {
    const p = this.driver
      .dispatchMany(ids, def, delayMs)
      .catch((err: unknown) =>
        this.logger.warn({ err, jobs: ids.length, job: def.name }, 'Dispatch failed; recovery will retry'),
      )
      .finally(() => this.dispatching.delete(p));
    this.dispatching.add(p);
  }

  /**
   * The request does not wait for Redis: the job is already durable, and if this hand-off fails the recovery
   * sweep dispatches it a little later.
   */
  private dispatchInBackground(id: string, def: JobDefinition<unknown>, delayMs: number): void {
    const p = this.driver
      .dispatch(id, def, delayMs)
      .catch((err: unknown) =>
        this.logger.warn({ err, job_id: id, job: def.name }, 'Dispatch failed; recovery will retry'),
      )
      .finally(() => this.dispatching.delete(p));
    this.dispatching.add(p);
  }
}
