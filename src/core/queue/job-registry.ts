import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DecoratedMethods } from '@/core/discovery/decorated-methods';
import { definedJobs, type JobDefinition } from './job-definition';
import { JOB_HANDLER, type JobContext } from './job-handler.decorator';

export type BoundHandler = (payload: unknown, ctx: JobContext) => Promise<void>;

/**
 * Finds every `@JobHandler` method at start and checks the pairing both ways: a declared job without a
 * handler, or two handlers for one job, stops the start.
 */
@Injectable()
export class JobRegistry implements OnModuleInit {
  private readonly handlers = new Map<string, { def: JobDefinition<unknown>; handle: BoundHandler }>();

  constructor(private readonly decorated: DecoratedMethods) {}

  onModuleInit(): void {
    for (const { meta: def, handler } of this.decorated.find<JobDefinition<unknown>>(JOB_HANDLER)) {
      if (this.handlers.has(def.name)) throw new Error(`Job "${def.name}" has two handlers`);
      this.handlers.set(def.name, { def, handle: handler as BoundHandler });
    }
    const missing = [...definedJobs().keys()].filter((name) => !this.handlers.has(name));
    if (missing.length > 0) throw new Error(`Jobs without a handler: ${missing.join(', ')}`);
  }

  get(name: string): { def: JobDefinition<unknown>; handle: BoundHandler } | undefined {
    return this.handlers.get(name);
  }

  definition(name: string): JobDefinition<unknown> | undefined {
    return this.handlers.get(name)?.def;
  }
}
