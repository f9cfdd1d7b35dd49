import { Injectable } from '@nestjs/common';
import { ScheduleHandler } from '@/core/queue/schedule';
import { AUTO_CLOSE } from './support.definitions';
import { SupportService } from './support.service';

@Injectable()
export class SupportJobs {
  constructor(private readonly support: SupportService) {}

  @ScheduleHandler(AUTO_CLOSE)
  async autoClose(): Promise<void> {
    await this.support.autoClose();
  }
}
