import { Injectable } from '@nestjs/common';
import { ScheduleHandler } from '@/core/queue/schedule';
import { PRUNE_CONTACT_REQUESTS } from './public.definitions';
import { PublicService } from './public.service';

@Injectable()
export class PublicJobs {
  constructor(private readonly publicSite: PublicService) {}

  @ScheduleHandler(PRUNE_CONTACT_REQUESTS)
  async prune(): Promise<void> {
    await this.publicSite.prune();
  }
}
