import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { IMPORT_MEMBERS } from './member-import.jobs';
import { MemberImportService } from './member-import.service';

@Injectable()
export class MemberImportProcessor {
  constructor(private readonly imports: MemberImportService) {}

  @JobHandler(IMPORT_MEMBERS)
  async handle(payload: { importId: string }, ctx: JobContext): Promise<void> {
    try {
      await this.imports.run(payload.importId, ctx.organizationId);
    } catch (err) {
      // Out of tries: the import is reported failed rather than left "running" for ever.
      if (ctx.attempt >= IMPORT_MEMBERS.attempts && ctx.organizationId)
        await this.imports.markFailed(ctx.organizationId, payload.importId, (err as Error).message);
      throw err;
    }
  }
}
