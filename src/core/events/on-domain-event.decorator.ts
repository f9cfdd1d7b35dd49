import { SetMetadata } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import type { DomainEvent, EventName } from './event-catalog';

export const DOMAIN_EVENT_SUBSCRIBER = Symbol('DOMAIN_EVENT_SUBSCRIBER');

export interface SubscriberOptions {
  /**
   * Stable name of the subscriber, `<area>.<reaction>` (default `<Class>.<method>`). Deliveries are recorded
   * under it: renaming a subscriber makes its pending deliveries orphans, so name it once.
   */
  readonly id?: string;
  /** Tries before the delivery is marked failed (default 10; backoff doubles from 2 s, capped at 1 h). */
  readonly maxAttempts?: number;
}

export interface SubscriberMetadata extends SubscriberOptions {
  readonly events: readonly EventName[];
  /** Batch handlers receive up to this many events of one claim in one transaction. */
  readonly batch: number | null;
}

/** What a subscriber receives beside the event(s). */
export interface DeliveryContext {
  /**
   * The transaction the delivery is recorded in. Write through it: the subscriber's writes and the record that
   * the delivery happened commit together, so a redelivered event changes nothing the second time.
   */
  readonly tx: Tx;
  /** 1 on the first try. */
  readonly attempt: number;
  readonly subscriber: string;
}

/**
 * Marks a provider method as a subscriber of one or more domain events. Subscribers are found by discovery and
 * run in processes that run jobs (the worker), at least once per event, each in its own transaction. The handler
 * is `(event: DomainEvent<N>, ctx: DeliveryContext) => Promise<void>`. A subscriber never blocks the request that
 * published, nor another subscriber: a throw is retried with backoff for this subscriber only.
 */
export function OnDomainEvent<N extends EventName>(
  events: N | readonly N[],
  options: SubscriberOptions = {},
): <T extends (event: DomainEvent<N>, ctx: DeliveryContext) => Promise<void>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<T>,
) => void {
  const metadata: SubscriberMetadata = {
    ...options,
    events: typeof events === 'string' ? [events] : events,
    batch: null,
  };
  return (target, key, descriptor) => SetMetadata(DOMAIN_EVENT_SUBSCRIBER, metadata)(target, key, descriptor);
}

/**
 * Like `OnDomainEvent`, for high-volume reactions: the handler receives up to `size` events at once, in one
 * transaction, `(events: DomainEvent<N>[], ctx: DeliveryContext) => Promise<void>`. Events already applied are
 * filtered out before the call. When a batch throws, its events are retried one by one, so one bad event
 * cannot hold back the others.
 */
export function OnDomainEventBatch<N extends EventName>(
  events: N | readonly N[],
  options: SubscriberOptions & { size?: number } = {},
): <T extends (events: DomainEvent<N>[], ctx: DeliveryContext) => Promise<void>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<T>,
) => void {
  const { size, ...rest } = options;
  const metadata: SubscriberMetadata = {
    ...rest,
    events: typeof events === 'string' ? [events] : events,
    batch: size ?? 500,
  };
  return (target, key, descriptor) => SetMetadata(DOMAIN_EVENT_SUBSCRIBER, metadata)(target, key, descriptor);
}
