import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DecoratedMethods } from '@/core/discovery/decorated-methods';
import type { DomainEvent, EventName } from './event-catalog';
import { DOMAIN_EVENT_SUBSCRIBER, type DeliveryContext, type SubscriberMetadata } from './on-domain-event.decorator';

export const DEFAULT_MAX_ATTEMPTS = 10;

export interface Subscriber {
  readonly id: string;
  readonly events: readonly EventName[];
  readonly batch: number | null;
  readonly maxAttempts: number;
  readonly handleOne: (event: DomainEvent, ctx: DeliveryContext) => Promise<void>;
  readonly handleMany: (events: DomainEvent[], ctx: DeliveryContext) => Promise<void>;
}

/** Finds every `@OnDomainEvent` method at start; two subscribers with one id stop the start. */
@Injectable()
export class EventSubscribers implements OnModuleInit {
  private readonly byId = new Map<string, Subscriber>();
  private readonly byEvent = new Map<EventName, Subscriber[]>();

  constructor(private readonly decorated: DecoratedMethods) {}

  onModuleInit(): void {
    for (const { meta, owner, handler } of this.decorated.find<SubscriberMetadata>(DOMAIN_EVENT_SUBSCRIBER)) {
      this.add(meta, owner, handler as Handler);
    }
  }

  /** Subscribers of an event, in a stable order. */
  of(name: EventName): readonly Subscriber[] {
    return this.byEvent.get(name) ?? [];
  }

  get(id: string): Subscriber | undefined {
    return this.byId.get(id);
  }

  all(): readonly Subscriber[] {
    return [...this.byId.values()];
  }

  private add(meta: SubscriberMetadata, fallbackId: string, handler: Handler): void {
    const id = meta.id ?? fallbackId;
    if (this.byId.has(id)) throw new Error(`Domain event subscriber "${id}" is declared twice`);
    const batch = meta.batch;
    const subscriber: Subscriber = {
      id,
      events: meta.events,
      batch,
      maxAttempts: meta.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      handleOne: batch === null ? (e, ctx) => handler(e, ctx) : (e, ctx) => handler([e], ctx),
      handleMany:
        batch === null
          ? async (events, ctx) => {
              for (const e of events) await handler(e, ctx);
            }
          : (events, ctx) => handler(events, ctx),
    };
    this.byId.set(id, subscriber);
    for (const name of meta.events) {
      const list = this.byEvent.get(name) ?? [];
      list.push(subscriber);
      list.sort((a, b) => a.id.localeCompare(b.id));
      this.byEvent.set(name, list);
    }
  }
}

type Handler = (eventOrEvents: DomainEvent | DomainEvent[], ctx: DeliveryContext) => Promise<void>;
