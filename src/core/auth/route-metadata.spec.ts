import type { ExecutionContext } from '@nestjs/common';
import { RouteMetadata, type RouteTargets } from './route-metadata';

class Parent {
  shared(): void {}
}
class Child extends Parent {}

const contextOf = (handler: object, controller: object): ExecutionContext =>
  ({ getHandler: () => handler, getClass: () => controller }) as unknown as ExecutionContext;

describe('RouteMetadata', () => {
  it('reads each operation once, and an inherited handler per controller', () => {
    const reads: RouteTargets[] = [];
    const meta = new RouteMetadata((targets) => {
      reads.push(targets);
      return { controller: targets[1] };
    });
    const handler = Object.getOwnPropertyDescriptor(Parent.prototype, 'shared')!.value as object;
    expect(meta.of(contextOf(handler, Parent))).toEqual({ controller: Parent });
    expect(meta.of(contextOf(handler, Parent))).toEqual({ controller: Parent });
    expect(meta.of(contextOf(handler, Child))).toEqual({ controller: Child });
    expect(reads).toEqual([
      [handler, Parent],
      [handler, Child],
    ]);
  });

  it('remembers falsy answers too', () => {
    let reads = 0;
    const meta = new RouteMetadata(() => (reads++, false));
    const ctx = contextOf(() => undefined, Parent);
    expect(meta.of(ctx)).toBe(false);
    expect(meta.of(ctx)).toBe(false);
    expect(reads).toBe(1);
  });
});
