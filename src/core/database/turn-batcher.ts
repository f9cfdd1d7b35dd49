interface Waiter<V> {
  resolve: (value: V | null) => void;
  reject: (err: unknown) => void;
}

/**
 * Look-ups by key, answered in batches by one call of `lookup` (DataLoader-style, without its cache: every answer is
 * read fresh). Keys asked for during one turn of the event loop go together: the batch is sent from `setImmediate`,
 * after every socket callback of the turn has run. At most `maxInFlight` batches are out at once: while they are,
 * keys wait for the next batch, so under load a batch holds what arrived during one round trip (the statement count
 * follows the database's latency, not the request rate); `maxKeys` caps a batch's size (a full batch is sent at
 * once). A key asked for twice in a batch is looked up once. When a batch of several keys fails, each key is looked
 * up alone, so a key the database refuses fails only its own callers.
 */
export class TurnBatcher<K, V> {
  private pending: Map<K, Waiter<V>[]> | null = null;
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly lookup: (keys: K[]) => Promise<Map<K, V>>,
    private readonly options: { maxKeys?: number; maxInFlight?: number } = {},
  ) {}

  load(key: K): Promise<V | null> {
    return new Promise<V | null>((resolve, reject) => {
      const batch = (this.pending ??= new Map<K, Waiter<V>[]>());
      const waiters = batch.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else batch.set(key, [{ resolve, reject }]);
      if (batch.size >= (this.options.maxKeys ?? 256)) this.send();
      else this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || !this.pending || this.inFlight >= (this.options.maxInFlight ?? 1)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight < (this.options.maxInFlight ?? 1)) this.send();
    });
  }

  private send(): void {
    const batch = this.pending;
    if (!batch) return;
    this.pending = null;
    this.inFlight++;
    void this.run(batch).finally(() => {
      this.inFlight--;
      this.schedule();
    });
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
