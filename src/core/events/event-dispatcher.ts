import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { EVENTS_WAKE_TOPIC } from './domain-events.service';
import type { DomainEvent, EventName } from './event-catalog';
import { type Subscriber, EventSubscribers } from './event-subscribers';
import { type ClaimedDelivery, type EventRow, EventsRepository } from './events.repository';

const CLAIM_LIMIT = 500;
/** How long a claimed delivery is leased to the process that claimed it (a dead process only delays it). */
export const EVENT_LEASE_MS = 60_000;
const POLL_MS = 1_000;
/**
 * After a pass during which more was published, how long to let deliveries gather before the next claim: a stream of
 * small commits (a directory sync: one `member.joined` per request) is then delivered in passes of many events, not
 * in one pass (claim, events, a transaction per subscriber: six statements or more) per commit. A wake that finds the
 * loop waiting still starts a pass at once.
 */
export const EVENT_GATHER_MS = 50;
const GROUP_CONCURRENCY = 4;
const BACKOFF_BASE_MS = 2_000;
const BACKOFF_CAP_MS = 3_600_000;

export function eventBackoffMs(attempt: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
}

function toEvent(row: EventRow): DomainEvent {
  return {
    id: row.id,
    name: row.name as EventName,
    version: row.version,
    organization_id: row.organization_id,
    actor_id: row.actor_id,
    occurred_at: row.occurred_at,
    payload: row.payload as DomainEvent['payload'],
  };
}

/**
 * Delivers domain events to their subscribers, in processes that run jobs. Claims due deliveries in batches
 * (SKIP LOCKED, so workers share the work), runs each subscriber in its own transaction together with the record
 * of the delivery, and retries a failing subscriber with exponential backoff without holding back the others.
 * Woken after every commit that published (through the invalidation bus, so across processes), and polls as a
 * fallback.
 */
@Injectable()
export class EventDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventDispatcher');
  private stopped = true;
  private loop?: Promise<void>;
  private wake?: () => void;
  private woken = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: EventsRepository,
    private readonly subscribers: EventSubscribers,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.processJobs) return;
    this.bus.on(
      EVENTS_WAKE_TOPIC,
      () => this.nudge(),
      () => this.nudge(),
    );
    this.stopped = false;
    this.loop = this.run();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
  }

  /** Asks the loop to look for work now. */
  nudge(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * One claim and its processing; returns how many deliveries were claimed. Tests call it (or `drain`) after
   * moving the Clock.
   */
  async runOnce(limit = CLAIM_LIMIT): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.repository.claim(now, new Date(now.getTime() + EVENT_LEASE_MS), limit);
    if (claimed.length === 0) return 0;
    const events = new Map(
      (await this.repository.findEvents([...new Set(claimed.map((c) => c.event_id))])).map((r) => [r.id, toEvent(r)]),
    );
    const groups = new Map<string, ClaimedDelivery[]>();
    for (const c of claimed) groups.set(c.subscriber, [...(groups.get(c.subscriber) ?? []), c]);
    const work = [...groups.entries()];
    const workers = Array.from({ length: Math.min(GROUP_CONCURRENCY, work.length) }, async () => {
      for (let next = work.shift(); next; next = work.shift()) await this.deliverGroup(next[0], next[1], events);
    });
    await Promise.all(workers);
    return claimed.length;
  }

  /** Runs until nothing is due (by the Clock). */
  async drain(): Promise<void> {
    while ((await this.runOnce()) > 0) {
      /* keep going */
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let claimed = 0;
      try {
        this.woken = false;
        claimed = await this.runOnce();
      } catch (err) {
        this.logger.warn({ err }, 'Event delivery pass failed; it runs again shortly');
      }
      if (this.stopped || claimed >= CLAIM_LIMIT) continue;
      // Woken during the pass: more is due, gathered for EVENT_GATHER_MS (only stopping cuts that short); else wait
      // for a wake, or the poll.
      const gathering = this.woken;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, gathering ? EVENT_GATHER_MS : POLL_MS);
        this.wake = () => {
          if (gathering && !this.stopped) return;
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private async deliverGroup(
    subscriberId: string,
    deliveries: ClaimedDelivery[],
    events: ReadonlyMap<string, DomainEvent>,
  ): Promise<void> {
    const subscriber = this.subscribers.get(subscriberId);
    for (const d of deliveries) {
      if (!subscriber || !events.has(d.event_id)) {
        await this.repository.markFailed(subscriberId, d.event_id, 'No such subscriber or event', null);
      }
    }
    if (!subscriber) return;
    const ready = deliveries.filter((d) => events.has(d.event_id));
    if (subscriber.batch === null) {
      for (const d of ready) await this.deliverOne(subscriber, d, events.get(d.event_id)!);
      return;
    }
    for (let i = 0; i < ready.length; i += subscriber.batch) {
      const chunk = ready.slice(i, i + subscriber.batch);
      await this.deliverBatch(
        subscriber,
        chunk,
        chunk.map((d) => events.get(d.event_id)!),
      );
    }
  }

  private async deliverOne(subscriber: Subscriber, delivery: ClaimedDelivery, event: DomainEvent): Promise<void> {
    try {
      await this.transactions.run(async (tx) => {
        const pending = await this.repository.markDone(subscriber.id, [event.id], this.clock.now(), tx);
        if (pending.length === 0) return; // applied already: a redelivery changes nothing
        await subscriber.handleOne(event, { tx, attempt: delivery.attempts, subscriber: subscriber.id });
      });
    } catch (err) {
      await this.recordFailure(subscriber, delivery, event, err);
    }
  }

  private async deliverBatch(
    subscriber: Subscriber,
    deliveries: ClaimedDelivery[],
    events: DomainEvent[],
  ): Promise<void> {
    try {
      await this.transactions.run(async (tx) => {
        const pending = new Set(
          await this.repository.markDone(
            subscriber.id,
            events.map((e) => e.id),
            this.clock.now(),
            tx,
          ),
        );
        const todo = events.filter((e) => pending.has(e.id));
        if (todo.length === 0) return;
        const attempt = Math.max(...deliveries.map((d) => d.attempts));
        await subscriber.handleMany(todo, { tx, attempt, subscriber: subscriber.id });
      });
    } catch (err) {
      if (events.length === 1) {
        await this.recordFailure(subscriber, deliveries[0], events[0], err);
        return;
      }
      this.logger.warn({ err, subscriber: subscriber.id, size: events.length }, 'Batch failed; retrying one by one');
      for (let i = 0; i < events.length; i++) await this.deliverOne(subscriber, deliveries[i], events[i]);
    }
  }

  private async recordFailure(subscriber: Subscriber, delivery: ClaimedDelivery, event: DomainEvent, err: unknown) {
    const final = delivery.attempts >= subscriber.maxAttempts;
    const retryAt = final ? null : new Date(this.clock.nowMs() + eventBackoffMs(delivery.attempts));
    const message = err instanceof Error ? `${err.name}: ${err.message}` : 'Unknown error';
    try {
      await this.repository.markFailed(subscriber.id, event.id, message, retryAt);
    } catch (recordErr) {
      // The lease expires and the delivery is claimed again: nothing is lost.
      this.logger.warn({ err: recordErr }, 'Could not record a failed delivery');
    }
    this.logger[final ? 'error' : 'warn'](
      { err, subscriber: subscriber.id, event: event.name, event_id: event.id, attempt: delivery.attempts },
      final ? 'Event delivery failed for good' : 'Event delivery failed; it will be retried',
    );
  }
}
