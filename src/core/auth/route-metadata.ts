import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/** `[handler, controller]`, as the Reflector takes them. */
export type RouteTargets = Parameters<Reflector['getAllAndOverride']>[1];

/**
 * What a guard reads from an operation's decorators, worked out once per operation (handler and controller) and
 * remembered: the metadata is fixed when the application starts, and the global guards run on every request, so
 * they read one small object instead of asking the Reflector for each key each time.
 */
export class RouteMetadata<T> {
  private readonly byController = new WeakMap<object, WeakMap<object, T>>();

  constructor(private readonly read: (targets: RouteTargets) => T) {}

  of(context: ExecutionContext): T {
    const handler = context.getHandler();
    const controller = context.getClass();
    let ofController = this.byController.get(controller);
    if (ofController === undefined) this.byController.set(controller, (ofController = new WeakMap<object, T>()));
    let value = ofController.get(handler);
    if (value === undefined) {
      value = this.read([handler, controller]);
      ofController.set(handler, value);
    }
    return value;
  }
}
