import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { defineSchedule, ScheduleHandler } from '@/core/queue/schedule';
import { LAUNCH_RETENTION_DAYS } from './lti-constants';
import { LtiRepository } from './lti.repository';

/** Launches are kept 90 days (extensions-v3 1.3); used nonces and service tokens only until they expire. Daily. */
export const PRUNE_LTI = defineSchedule({ name: 'lti.prune', cron: '15 5 * * *' });

@Injectable()
export class LtiMaintenance {
  private readonly logger = new Logger('Lti');

  constructor(
    private readonly repo: LtiRepository,
    private readonly clock: Clock,
  ) {}

  @ScheduleHandler(PRUNE_LTI)
  async prune(): Promise<void> {
    const now = this.clock.now();
    const deleted = await this.repo.prune(now, new Date(now.getTime() - LAUNCH_RETENTION_DAYS * 24 * 3600 * 1000));
    this.logger.log(deleted, 'LTI launches, nonces and tokens pruned');
  }
}
