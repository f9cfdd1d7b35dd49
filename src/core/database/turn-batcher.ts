interface Waiter<V> {
  resolve: (value: V | null) => void;
  reject: (err: unknown) => void;
}

/**
 * Look-ups by key asked for during one turn of the event loop, answered by one call of `lookup` (a DataLoader-style
 * batch, without its cache: every answer is read fresh). The batch is sent from `setImmediate`, after every socket
 * callback of the turn has run, so requests arriving together share one statement; `maxKeys` caps its size. A key
 * asked for twice in a turn is looked up once. When a batch of several keys fails, each key is looked up alone, so a
 * key the database refuses fails only its own callers.
 */
export class TurnBatcher<K, V> {
  private pending: Map<K, Waiter<V>[]> | null = null;

  constructor(
    private readonly lookup: (keys: K[]) => Promise<Map<K, V>>,
    private readonly maxKeys = 256,
  ) {}

  load(key: K): Promise<V | null> {
    return new Promise<V | null>((resolve, reject) => {
      if (!this.pending) {
        const batch = new Map<K, Waiter<V>[]>();
        this.pending = batch;
        setImmediate(() => this.flush(batch));
      }
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      if (this.pending.size >= this.maxKeys) this.flush(this.pending);
    });
  }

  private flush(batch: Map<K, Waiter<V>[]>): void {
    if (this.pending !== batch) return; // already sent (it reached maxKeys)
    this.pending = null;
    void this.run(batch);
  }

  private async run(batch: Map<K, Waiter<V>[]>): Promise<void> {
    try {
      const found = await this.lookup([...batch.keys()]);
      for (const [key, waiters] of batch) for (const w of waiters) w.resolve(found.get(key) ?? null);
    } catch (err) {
      if (batch.size === 1) {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        return;
      }
      await Promise.all([...batch].map(([key, waiters]) => this.run(new Map([[key, waiters]]))));
    }
  }
}
