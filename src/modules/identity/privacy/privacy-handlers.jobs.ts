import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { type ScheduleContext, ScheduleHandler } from '@/core/queue/schedule';
import { ErasureService } from './erasure.service';
import { PrivacyExportsService } from './privacy-exports.service';
import { BUILD_EXPORT, ERASE_ACCOUNT, ERASURE_REMINDERS, EXPIRE_EXPORTS, RUN_DUE_ERASURES } from './privacy.jobs';

/** The background work of privacy: exports, erasures, and the schedules of extensions-v2 26.2. */
@Injectable()
export class PrivacyJobs {
  constructor(
    private readonly exports: PrivacyExportsService,
    private readonly erasure: ErasureService,
  ) {}

  @JobHandler(BUILD_EXPORT)
  async buildExport(payload: { export_id: string; user_id: string }, ctx: JobContext): Promise<void> {
    await this.exports.build(payload.export_id, payload.user_id, ctx.attempt);
  }

  @JobHandler(ERASE_ACCOUNT)
  async eraseAccount(payload: { erasure_id: string }): Promise<void> {
    await this.erasure.run(payload.erasure_id);
  }

  @ScheduleHandler(RUN_DUE_ERASURES)
  async runDueErasures(ctx: ScheduleContext): Promise<void> {
    await this.erasure.enqueueDue(ctx.scheduledAt);
  }

  @ScheduleHandler(ERASURE_REMINDERS)
  async erasureReminders(): Promise<void> {
    await this.erasure.sendReminders();
  }

  @ScheduleHandler(EXPIRE_EXPORTS)
  async expireExports(): Promise<void> {
    await this.exports.expireDue();
  }
}
