import { Injectable } from '@nestjs/common';
import { defineSchedule, ScheduleHandler } from '@/core/queue/schedule';
import { DuelsService } from './duels.service';

/** extensions-v2 26.2: pending challenges older than 24 h and ready duels past `expires_at` expire. */
export const EXPIRE_DUELS = defineSchedule({ name: 'duels.expire', cron: '* * * * *' });

@Injectable()
export class DuelsJobs {
  constructor(private readonly duels: DuelsService) {}

  @ScheduleHandler(EXPIRE_DUELS)
  async expire(): Promise<void> {
    await this.duels.expireAll();
  }
}
