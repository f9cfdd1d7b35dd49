import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { ScheduleHandler } from '@/core/queue/schedule';
import { CLOSE_OVERDUE, CLOSE_SESSION } from './exams.jobs';
import { ExamSessionsService } from './exam-sessions.service';

/** The background work of exams: the close at each session's deadline, and the once-a-minute safety net. */
@Injectable()
export class ExamJobs {
  constructor(private readonly sessions: ExamSessionsService) {}

  @JobHandler(CLOSE_SESSION)
  async closeSession(payload: { session_id: string; exam_id: string }, ctx: JobContext): Promise<void> {
    // Tenancy as a request would check it: the session is looked up in the job's organization only.
    if (!ctx.organizationId) return;
    await this.sessions.closeAtDeadline(ctx.organizationId, payload.exam_id, payload.session_id);
  }

  @ScheduleHandler(CLOSE_OVERDUE)
  async closeOverdue(): Promise<void> {
    await this.sessions.closeAllOverdue();
  }
}
