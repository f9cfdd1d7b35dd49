import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import { Clock } from '@/core/clock/clock';
import type { Tx } from '@/core/database/transaction';
import { DOMAIN_EVENTS, type EventName, type EventPayload, payloadProblems } from './event-catalog';
import { EventSubscribers } from './event-subscribers';
import { EventsRepository } from './events.repository';

/** Pub/sub topic that wakes the dispatchers of every process after a commit. */
export const EVENTS_WAKE_TOPIC = 'domain-events';

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
export class DomainEvents {
  constructor(
    private readonly repository: EventsRepository,
    private readonly subscribers: EventSubscribers,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {}

  async publish<N extends EventName>(tx: Tx, name: N, payload: EventPayload<N>, meta: PublishMeta): Promise<string> {
    const problems = payloadProblems(name, payload);
    // A programming error, caught by the tests of the publishing area: the catalog is the contract.
    if (problems.length > 0) throw new Error(`Event "${name}" does not match the catalog: ${problems.join('; ')}`);
    const id = randomUUID();
    const now = this.clock.now();
    const subscribers = this.subscribers.of(name).map((s) => s.id);
    await this.repository.insert(
      {
        id,
        name,
        version: DOMAIN_EVENTS[name].version,
        organization_id: meta.organizationId,
        actor_id: meta.actorId,
        occurred_at: meta.occurredAt ?? now,
        payload: payload,
      },
      subscribers,
      now,
      tx,
    );
    if (subscribers.length > 0) tx.afterCommit(() => this.bus.publish(EVENTS_WAKE_TOPIC, name));
    return id;
  }

  /**
   * Many events of one name with one statement each for the events and their deliveries: the same rows as
   * `publish` once per payload. Answers the event ids in the order of `payloads`.
   */
  async publishMany<N extends EventName>(
    tx: Tx,
    name: N,
    payloads: readonly EventPayload<N>[],
    meta: PublishMeta,
  ): Promise<string[]> {
    if (payloads.length === 0) return [];
    for (const payload of payloads) {
      const problems = payloadProblems(name, payload);
      if (problems.length > 0) throw new Error(`Event "${name}" does not match the catalog: ${problems.join('; ')}`);
    }
    const now = this.clock.now();
    const subscribers = this.subscribers.of(name).map((s) => s.id);
    const events = payloads.map((payload) => ({
      id: randomUUID(),
      name,
      version: DOMAIN_EVENTS[name].version,
      organization_id: meta.organizationId,
      actor_id: meta.actorId,
      occurred_at: meta.occurredAt ?? now,
      payload,
    }));
    await this.repository.insertMany(events, subscribers, now, tx);
    if (subscribers.length > 0) tx.afterCommit(() => this.bus.publish(EVENTS_WAKE_TOPIC, name));
    return events.map((e) => e.id);
  }
}
