import { Global, Injectable, Module } from '@nestjs/common';
import { DecoratedMethodsModule } from '@/core/discovery/decorated-methods';
import { Clock } from '@/core/clock/clock';
import { defineSchedule, ScheduleHandler } from '@/core/queue/schedule';
import { DomainEvents } from './domain-events.service';
import { EventDispatcher } from './event-dispatcher';
import { EventSubscribers } from './event-subscribers';
import { EventsRepository } from './events.repository';

/** Delivered events are kept this long (stats and audits of deliveries), then pruned. */
export const EVENT_RETENTION_DAYS = 30;

export const PRUNE_EVENTS = defineSchedule({ name: 'events.prune', cron: '15 5 * * *' });

@Injectable()
class EventsMaintenance {
  constructor(
    private readonly repository: EventsRepository,
    private readonly clock: Clock,
  ) {}

  @ScheduleHandler(PRUNE_EVENTS)
  async prune(): Promise<void> {
    const before = new Date(this.clock.nowMs() - EVENT_RETENTION_DAYS * 86_400_000);
    while ((await this.repository.prune(before, 5_000)) > 0) {
      /* in bounded batches */
    }
  }
}

/** Domain events: the catalog, publishing in the fact's transaction, and delivery to discovered subscribers. */
@Global()
@Module({
  imports: [DecoratedMethodsModule],
  providers: [EventsRepository, EventSubscribers, DomainEvents, EventDispatcher, EventsMaintenance],
  exports: [DomainEvents, EventDispatcher, EventSubscribers, EventsRepository],
})
export class EventsModule {}
