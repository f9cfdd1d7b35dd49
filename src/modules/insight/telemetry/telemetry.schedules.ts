import { Injectable } from '@nestjs/common';
import { defineSchedule, ScheduleHandler } from '@/core/queue/schedule';
import { TelemetryService } from './telemetry.service';

/** 26.2: telemetry older than 30 days. */
export const PRUNE_TELEMETRY = defineSchedule({ name: 'telemetry.prune', cron: '30 4 * * *' });

@Injectable()
export class TelemetryJobs {
  constructor(private readonly telemetry: TelemetryService) {}

  @ScheduleHandler(PRUNE_TELEMETRY)
  async prune(): Promise<void> {
    await this.telemetry.prune();
  }
}
