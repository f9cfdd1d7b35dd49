/** A request budget: `limit` requests per fixed window of `windowSeconds`, per key. */
export interface BudgetPolicy {
  /** The name shown in the `RateLimit` fields (`budget.token`, `budget.session`, `budget.anonymous`). */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The answer to one request: allowed or not, what is left, and seconds until the window resets (>= 1). */
export interface BudgetVerdict {
  readonly allowed: boolean;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** Where instances add up their counts: adds each batch item to its window's key, answers the new totals. */
export interface SharedCounts {
  add(items: readonly { key: string; count: number; ttlSeconds: number }[]): Promise<number[]>;
}

interface Entry {
  readonly policy: BudgetPolicy;
  /** `<policy>:<id>`; the shared key adds the window. */
  readonly key: string;
  readonly window: number;
  readonly windowEndMs: number;
  /** The count of every instance as of this instance's last reconcile (its own flushed hits included). */
  shared: number;
  /** Hits of this instance not yet sent. */
  pending: number;
  /** Hits of this instance sent and not yet answered. */
  sending: number;
}

/**
 * Counts requests against budgets locally, so a request costs a map lookup, and reconciles with the shared store
 * (`reconcile`, called at least once a second): each key's hits since the last reconcile go out in one batch, and
 * the totals that come back include every other instance's. An instance therefore admits at most one reconcile
 * interval's worth of requests beyond a budget that other instances exhausted. Without a store the counts are the
 * process's own. Fixed windows aligned on the epoch, so every instance agrees on a window's key and its reset.
 */
export class BudgetCounter {
  /** The current window's entry of each id, per policy: a request's lookup uses the id as it is (no key built). */
  private readonly current = new Map<BudgetPolicy, Map<string, Entry>>();
  /** Entries of windows over with hits still to send (or being sent). */
  private readonly past = new Set<Entry>();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly store: SharedCounts | null) {}

  hit(policy: BudgetPolicy, id: string, nowMs: number): BudgetVerdict {
    let ids = this.current.get(policy);
    if (ids === undefined) {
      ids = new Map();
      this.current.set(policy, ids);
    }
    let entry = ids.get(id);
    if (entry === undefined || nowMs >= entry.windowEndMs || nowMs < entry.windowEndMs - policy.windowSeconds * 1000) {
      const windowMs = policy.windowSeconds * 1000;
      const window = Math.floor(nowMs / windowMs);
      if (entry && (entry.pending > 0 || entry.sending > 0)) this.past.add(entry);
      entry = {
        policy,
        key: `${policy.name}:${id}`,
        window,
        windowEndMs: (window + 1) * windowMs,
        shared: 0,
        pending: 0,
        sending: 0,
      };
      ids.set(id, entry);
    }
    const resetSeconds = Math.max(1, Math.ceil((entry.windowEndMs - nowMs) / 1000));
    const used = entry.shared + entry.pending + entry.sending;
    if (used >= policy.limit) return { allowed: false, remaining: 0, resetSeconds };
    entry.pending++;
    return { allowed: true, remaining: policy.limit - used - 1, resetSeconds };
  }

  /** Sends the pending hits and learns the shared totals; calls run one after the other, never overlapping. */
  reconcile(nowMs: number): Promise<void> {
    this.queue = this.queue.then(() => this.reconcileOnce(nowMs));
    return this.queue;
  }

  /** Keys held in memory (for tests and metrics): current windows, plus past ones with hits still to send. */
  get size(): number {
    let size = this.past.size;
    for (const ids of this.current.values()) size += ids.size;
    return size;
  }

  private async reconcileOnce(nowMs: number): Promise<void> {
    const batch: { entry: Entry; count: number }[] = [];
    const visit = (entry: Entry, forget: () => void): void => {
      // A window over for longer than its own length is never read again (its shared key has expired too): hits
      // kept for it while the store was down are dropped rather than held forever.
      if (entry.windowEndMs + entry.policy.windowSeconds * 1000 <= nowMs && entry.sending === 0) {
        forget();
        return;
      }
      if (entry.pending > 0 && this.store) {
        batch.push({ entry, count: entry.pending });
        entry.sending += entry.pending;
        entry.pending = 0;
      } else if (entry.windowEndMs <= nowMs && entry.sending === 0) {
        forget();
      }
    };
    for (const entry of this.past) visit(entry, () => this.past.delete(entry));
    for (const ids of this.current.values()) {
      for (const [id, entry] of ids) visit(entry, () => ids.delete(id));
    }
    if (batch.length === 0 || !this.store) return;
    const items = batch.map(({ entry, count }) => ({
      key: `${entry.key}:${entry.window}`,
      count,
      // Past its window a key is never read again; twice the window covers clocks a little apart.
      ttlSeconds: entry.policy.windowSeconds * 2,
    }));
    try {
      const totals = await this.store.add(items);
      batch.forEach(({ entry, count }, i) => {
        entry.sending -= count;
        entry.shared = Math.max(entry.shared + count, totals[i] ?? 0);
      });
    } catch {
      // The store is unreachable: keep the hits and send them with the next reconcile.
      for (const { entry, count } of batch) {
        entry.sending -= count;
        entry.pending += count;
      }
    }
  }
}
