import { Injectable } from '@nestjs/common';
import { ScheduleHandler, defineSchedule } from '@/core/queue/schedule';
import { PublicService } from './public.service';

/** 26.2: 180 days after handling, 365 days after arrival. */
export const PRUNE_CONTACT_REQUESTS = defineSchedule({ name: 'public.prune_contact_requests', cron: '45 4 * * *' });

@Injectable()
export class PublicJobs {
  constructor(private readonly publicSite: PublicService) {}

  @ScheduleHandler(PRUNE_CONTACT_REQUESTS)
  async prune(): Promise<void> {
    await this.publicSite.prune();
  }
}
