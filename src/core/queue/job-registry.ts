import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
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

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || wrapper.isDependencyTreeStatic() === false) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = instance[method];
        if (typeof fn !== 'function') continue;
        const def = this.reflector.get<JobDefinition<unknown> | undefined>(JOB_HANDLER, fn as () => unknown);
        if (!def) continue;
        if (this.handlers.has(def.name)) throw new Error(`Job "${def.name}" has two handlers`);
        this.handlers.set(def.name, { def, handle: (fn as BoundHandler).bind(instance) });
      }
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
