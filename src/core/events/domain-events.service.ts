import { randomUUID } from 'node:crypto';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import { Clock } from '@/core/clock/clock';
import type { Tx } from '@/core/database/transaction';
import { DOMAIN_EVENTS, type EventName, type EventPayload, payloadProblems } from './event-catalog';
import { EventSubscribers } from './event-subscribers';
import { EventsRepository } from './events.repository';

/** Pub/sub topic that wakes the dispatchers of every process after a commit. */
export const EVENTS_WAKE_TOPIC = 'domain-events';
/**
 * A process sends at most one wake per this interval: the first commit's at once, those of the next EVENTS_WAKE_MS
 * as one message at its end. A stream of commits (a directory sync) then costs a few messages a second, not one Redis
 * round trip per commit and one message per commit to every process; a dispatcher gathers that long anyway.
 */
export const EVENTS_WAKE_MS = 50;

export interface PublishMeta {
  /** The organization the fact belongs to (null for platform-level facts). */
  organizationId: string | null;
  /** Who caused it; null for the service itself (a deadline, a schedule). */
  actorId: string | null;
  /** When the fact happened (default: now by the Clock). */
  occurredAt?: Date;
}

/**
 * Publishes domain events. Always inside the transaction of the fact: the event and one delivery row per
 * subscriber are written with it, so an event exists if and only if its fact committed, and nothing is lost when a
 * process dies before delivery.
 */
@Injectable()
export class DomainEvents implements OnApplicationShutdown {
  private lastWakeAt = -Infinity;
  private wakeTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: EventsRepository,
    private readonly subscribers: EventSubscribers,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {}

  async publish<N extends EventName>(tx: Tx, name: N, payload: EventPayload<N>, meta: PublishMeta): Promise<string> {
    const [id] = await this.publishMany(tx, name, [{ payload, meta }]);
    return id;
  }

  /** Publishes several events of one name in the fact's transaction, in one statement; answers their ids in order. */
  async publishMany<N extends EventName>(
    tx: Tx,
    name: N,
    events: readonly { payload: EventPayload<N>; meta: PublishMeta }[],
  ): Promise<string[]> {
    if (events.length === 0) return [];
    const now = this.clock.now();
    const subscribers = this.subscribers.of(name).map((s) => s.id);
    const rows = events.map(({ payload, meta }) => eventRow(name, payload, meta, now));
    await this.repository.insert(rows, subscribers, now, tx);
    if (subscribers.length > 0) tx.afterCommit(() => this.wakeDispatchers(name));
    return rows.map((r) => r.id);
  }

  /**
   * `publish` of one event by the fact's own statement (as `AuditService.insertCte` writes an audit line): answers a
   * data-modifying CTE, its parameters numbered from `$<firstParam>`, that writes the event and its deliveries only
   * when `when` (a condition of that statement, e.g. that its insert added a row) holds: one round trip fewer in the
   * fact's transaction. The caller calls `published(tx)` when the statement did write it, so that the dispatchers are
   * woken after the commit.
   */
  publishCte<N extends EventName>(
    name: N,
    payload: EventPayload<N>,
    meta: PublishMeta,
    firstParam: number,
    when: string,
  ): { sql: string; params: unknown[]; published: (tx: Tx) => void } {
    const now = this.clock.now();
    const subscribers = this.subscribers.of(name).map((s) => s.id);
    const row = eventRow(name, payload, meta, now);
    const cte = this.repository.insertCte(row, subscribers, now, firstParam, when);
    return {
      ...cte,
      published: (tx) => {
        if (subscribers.length > 0) tx.afterCommit(() => this.wakeDispatchers(name));
      },
    };
  }

  /** Wakes the dispatchers (at most once per EVENTS_WAKE_MS of real time; the poll is the fallback). */
  private wakeDispatchers(name: string): Promise<void> | undefined {
    if (this.wakeTimer) return undefined; // a wake is due at the end of the interval: it covers this commit too
    const wait = this.lastWakeAt + EVENTS_WAKE_MS - performance.now();
    if (wait <= 0) {
      this.lastWakeAt = performance.now();
      return this.bus.publish(EVENTS_WAKE_TOPIC, name);
    }
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.lastWakeAt = performance.now();
      void this.bus.publish(EVENTS_WAKE_TOPIC, name);
    }, wait);
    return undefined;
  }

  onApplicationShutdown(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
  }
}

/**
 * The row of one event, its payload checked against the catalog first (a mismatch is a programming error, caught by
 * the tests of the publishing area: the catalog is the contract).
 */
function eventRow<N extends EventName>(name: N, payload: EventPayload<N>, meta: PublishMeta, now: Date) {
  const problems = payloadProblems(name, payload);
  if (problems.length > 0) throw new Error(`Event "${name}" does not match the catalog: ${problems.join('; ')}`);
  return {
    id: randomUUID(),
    name,
    version: DOMAIN_EVENTS[name].version,
    organization_id: meta.organizationId,
    actor_id: meta.actorId,
    occurred_at: meta.occurredAt ?? now,
    payload: payload as Record<string, unknown>,
  };
}
