import type { InvalidationBus } from './invalidation-bus';
import { SharedCache } from './cache';

/** A bus of one process: what `publish` sends, `on` hears at once. */
function localBus(reliable = true): InvalidationBus & { reliable: boolean } {
  const listeners = new Map<string, (key: string) => void>();
  return {
    reliable,
    on: (topic: string, onKey: (key: string) => void) => void listeners.set(topic, onKey),
    publish: async (topic: string, key: string) => listeners.get(topic)?.(key),
  } as unknown as InvalidationBus & { reliable: boolean };
}

describe('SharedCache.getOrLoadMany', () => {
  it('answers hits from the cache and loads only the misses, in one call', async () => {
    const cache = new SharedCache<{ v: string }>('t', localBus(), { max: 10, ttlMs: 60_000 });
    const calls: string[][] = [];
    const load = async (missing: string[]) => {
      calls.push(missing);
      return new Map(missing.filter((k) => k !== 'none').map((k) => [k, { v: k.toUpperCase() }]));
    };
    expect(await cache.getOrLoadMany(['a', 'b'], load)).toEqual(
      new Map([
        ['a', { v: 'A' }],
        ['b', { v: 'B' }],
      ]),
    );
    const second = await cache.getOrLoadMany(['a', 'c', 'none'], load);
    expect([...second.keys()].sort()).toEqual(['a', 'c']);
    expect(calls).toEqual([
      ['a', 'b'],
      ['c', 'none'],
    ]);
    expect(await cache.getOrLoadMany(['a', 'b', 'c'], load)).toHaveProperty('size', 3);
    expect(calls).toHaveLength(2);
  });

  it('loads again after an invalidation, and keeps nothing loaded while one happened', async () => {
    const bus = localBus();
    const cache = new SharedCache<{ v: number }>('t', bus, { max: 10, ttlMs: 60_000 });
    let n = 0;
    const load = async (missing: string[]) => new Map(missing.map((k) => [k, { v: ++n }]));
    await cache.getOrLoadMany(['a'], load);
    await cache.invalidate('a');
    expect((await cache.getOrLoadMany(['a'], load)).get('a')).toEqual({ v: 2 });
    // An invalidation during the load: the loaded value is answered but not kept.
    await cache.invalidate('a');
    const racing = async (missing: string[]) => {
      await cache.invalidate('other');
      return load(missing);
    };
    expect((await cache.getOrLoadMany(['a'], racing)).get('a')).toEqual({ v: 3 });
    expect((await cache.getOrLoadMany(['a'], load)).get('a')).toEqual({ v: 4 });
  });

  it('caches nothing while invalidations could be missed', async () => {
    const cache = new SharedCache<{ v: number }>('t', localBus(false), { max: 10, ttlMs: 60_000 });
    let n = 0;
    const load = async (missing: string[]) => new Map(missing.map((k) => [k, { v: ++n }]));
    await cache.getOrLoadMany(['a'], load);
    expect((await cache.getOrLoadMany(['a'], load)).get('a')).toEqual({ v: 2 });
  });

  it('keeps at most `max` entries, dropping the least recently used', async () => {
    const cache = new SharedCache<{ v: string }>('t', localBus(), { max: 2, ttlMs: 60_000 });
    const loads: string[] = [];
    const load = async (missing: string[]) => {
      loads.push(...missing);
      return new Map(missing.map((k) => [k, { v: k }]));
    };
    await cache.getOrLoadMany(['a', 'b'], load);
    await cache.getOrLoadMany(['a'], load); // a is now the most recently used
    await cache.getOrLoadMany(['c'], load); // b goes
    expect(loads).toEqual(['a', 'b', 'c']);
    await cache.getOrLoadMany(['a', 'c'], load);
    expect(loads).toEqual(['a', 'b', 'c']);
    await cache.getOrLoadMany(['b'], load);
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
  });
});
