import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { ScheduleHandler } from '@/core/queue/schedule';
import { EXPIRE_REPORTS, GENERATE_REPORT } from './reports.jobs';
import { ReportsService } from './reports.service';

/** The background work of reports: building each file, and the hourly expiry. */
@Injectable()
export class ReportJobs {
  constructor(private readonly reports: ReportsService) {}

  @JobHandler(GENERATE_REPORT)
  async generate(payload: { report_id: string }, ctx: JobContext): Promise<void> {
    // Tenancy as a request would check it: the report is looked up in the job's organization only.
    if (!ctx.organizationId) return;
    await this.reports.generate(ctx.organizationId, payload.report_id, ctx.attempt);
  }

  @ScheduleHandler(EXPIRE_REPORTS)
  async expire(): Promise<void> {
    await this.reports.expireDue();
  }
}
