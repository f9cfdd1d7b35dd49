import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';

/** A provider method carrying a decorator's metadata, bound to its instance. */
export interface DecoratedMethod<M> {
  readonly meta: M;
  /** `Class.method`, for errors and ids. */
  readonly owner: string;
  readonly handler: (...args: never[]) => unknown;
}

/**
 * The one discovery of decorated handlers (`@JobHandler`, `@Schedule`, `@OnDomainEvent`): every method of every
 * static provider that carries the metadata key, found once at start.
 */
@Injectable()
export class DecoratedMethods {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  find<M>(metadataKey: string | symbol): DecoratedMethod<M>[] {
    const found: DecoratedMethod<M>[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || wrapper.isDependencyTreeStatic() === false) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = instance[method];
        if (typeof fn !== 'function') continue;
        const meta = this.reflector.get<M | undefined>(metadataKey, fn as () => unknown);
        if (meta === undefined) continue;
        const handler = (fn as (...args: never[]) => unknown).bind(instance);
        found.push({ meta, owner: `${prototype.constructor.name}.${method}`, handler });
      }
    }
    return found;
  }
}

@Module({ imports: [DiscoveryModule], providers: [DecoratedMethods], exports: [DecoratedMethods] })
export class DecoratedMethodsModule {}
