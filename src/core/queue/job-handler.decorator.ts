import { SetMetadata } from '@nestjs/common';
import type { JobDefinition } from './job-definition';

export const JOB_HANDLER = Symbol('JOB_HANDLER');

/** What a handler receives beside the payload. */
export interface JobContext {
  readonly jobId: string;
  /** 1 on the first try. */
  readonly attempt: number;
  /** The organization the job acts for (null for platform-level work such as sign-in email). */
  readonly organizationId: string | null;
}

/**
 * Marks a provider method as the handler of a job. Handlers are found by discovery; they must be idempotent:
 * a job may run again after a crash or a lost Redis, and must then change nothing twice.
 */
export const JobHandler = (definition: JobDefinition<unknown>): MethodDecorator => SetMetadata(JOB_HANDLER, definition);
