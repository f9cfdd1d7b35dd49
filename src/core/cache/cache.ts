import { LRUCache } from 'lru-cache';
import type { Tx } from '@/core/database/transaction';
import type { InvalidationBus } from './invalidation-bus';

/**
 * A small in-process cache whose entries every instance drops as soon as any instance changes the value.
 * Serves nothing while invalidations could be missed (see InvalidationBus.reliable). A value loaded while an
 * invalidation happened is not kept, so a slow read can never reinstate what was just invalidated.
 */
export class SharedCache<V extends object> {
  private readonly lru: LRUCache<string, V>;
  private epoch = 0;

  constructor(
    private readonly topic: string,
    private readonly bus: InvalidationBus,
    options: { max: number; ttlMs: number },
  ) {
    // Bounded by count through maxSize (each entry weighs 1) rather than `max`, which allocates its arrays for the
    // whole bound up front: ~480 000 slots across the caches of one process, paid at every start.
    this.lru = new LRUCache<string, V>({ maxSize: options.max, sizeCalculation: () => 1, ttl: options.ttlMs });
    bus.on(
      topic,
      (key) => {
        this.epoch++;
        this.lru.delete(key);
      },
      () => {
        this.epoch++;
        this.lru.clear();
      },
    );
  }

  async getOrLoad(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (!this.bus.reliable) return load();
    const hit = this.lru.get(key);
    if (hit) return hit;
    const epoch = this.epoch;
    const value = await load();
    if (value && epoch === this.epoch && this.bus.reliable) this.lru.set(key, value);
    return value;
  }

  /**
   * The values of many keys: hits from the cache, the misses from one `loadMany` (which answers the values it
   * found, by key). Keys without a value are absent from the answer.
   */
  async getOrLoadMany(
    keys: readonly string[],
    loadMany: (missing: string[]) => Promise<ReadonlyMap<string, V>>,
  ): Promise<Map<string, V>> {
    const out = new Map<string, V>();
    if (!this.bus.reliable) {
      for (const [key, value] of await loadMany([...keys])) out.set(key, value);
      return out;
    }
    const missing: string[] = [];
    for (const key of keys) {
      const hit = this.lru.get(key);
      if (hit) out.set(key, hit);
      else missing.push(key);
    }
    if (missing.length === 0) return out;
    const epoch = this.epoch;
    const loaded = await loadMany(missing);
    const keep = epoch === this.epoch && this.bus.reliable;
    for (const [key, value] of loaded) {
      out.set(key, value);
      if (keep) this.lru.set(key, value);
    }
    return out;
  }

  /** Drops the entry everywhere now, and again once the transaction (if any) has committed. */
  async invalidate(key: string, tx?: Tx): Promise<void> {
    await this.bus.publish(this.topic, key);
    tx?.afterCommit(() => this.bus.publish(this.topic, key));
  }

  /** `invalidate` for many keys, each message sent in one pipeline. */
  async invalidateMany(keys: readonly string[], tx?: Tx): Promise<void> {
    if (keys.length === 0) return;
    await this.bus.publishMany(this.topic, keys);
    tx?.afterCommit(() => this.bus.publishMany(this.topic, keys));
  }
}
