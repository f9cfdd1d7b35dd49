import { Injectable } from '@nestjs/common';
import { ScheduleHandler, defineSchedule } from '@/core/queue/schedule';
import { SupportService } from './support.service';

export const AUTO_CLOSE = defineSchedule({ name: 'support.auto_close', cron: '0 3 * * *' });

@Injectable()
export class SupportJobs {
  constructor(private readonly support: SupportService) {}

  @ScheduleHandler(AUTO_CLOSE)
  async autoClose(): Promise<void> {
    await this.support.autoClose();
  }
}
