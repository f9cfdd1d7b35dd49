import { BudgetCounter, type SharedCounts } from './budget-counter';
import { addressKey as budgetAddressKey } from '@/core/rate-limit/address-key';

const policy = { name: 'budget.test', limit: 3, windowSeconds: 60 };
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);

/** A store shared by counters, as Redis is by instances; `down` makes it fail. */
function sharedStore(): SharedCounts & { totals: Map<string, number>; down: boolean } {
  const totals = new Map<string, number>();
  const store = {
    totals,
    down: false,
    add(items: readonly { key: string; count: number }[]): Promise<number[]> {
      if (store.down) return Promise.reject(new Error('down'));
      return Promise.resolve(
        items.map(({ key, count }) => {
          totals.set(key, (totals.get(key) ?? 0) + count);
          return totals.get(key)!;
        }),
      );
    },
  };
  return store;
}

describe('budgetAddressKey', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6, keys IPv6 by its /64', () => {
    expect(budgetAddressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(budgetAddressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(budgetAddressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(budgetAddressKey('2001:0db8:0001:0002::ffff')).toBe('2001:db8:1:2::/64');
    expect(budgetAddressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(budgetAddressKey(undefined)).toBe('unknown');
    expect(budgetAddressKey('not-an-address')).toBe('not-an-address');
  });
});

describe('BudgetCounter', () => {
  it('allows the limit, refuses one past with the seconds to the window end, resets with the window', () => {
    const c = new BudgetCounter(null);
    expect([1, 2, 3].map(() => c.hit(policy, 'k', T0 + 15_000).remaining)).toEqual([2, 1, 0]);
    expect(c.hit(policy, 'k', T0 + 15_000)).toEqual({ allowed: false, remaining: 0, resetSeconds: 45 });
    expect(c.hit(policy, 'other', T0 + 15_000).allowed).toBe(true);
    expect(c.hit(policy, 'k', T0 + 60_000)).toEqual({ allowed: true, remaining: 2, resetSeconds: 60 });
  });

  it('two counters on one store learn each other’s counts at reconcile', async () => {
    const store = sharedStore();
    const a = new BudgetCounter(store);
    const b = new BudgetCounter(store);
    a.hit(policy, 'k', T0);
    a.hit(policy, 'k', T0);
    await a.reconcile(T0);
    b.hit(policy, 'k', T0);
    await b.reconcile(T0);
    expect(store.totals.get(`budget.test:k:${T0 / 60_000}`)).toBe(3);
    expect(b.hit(policy, 'k', T0).allowed).toBe(false);
  });

  it('keeps the hits while the store is down and sends them later; forgets past windows', async () => {
    const store = sharedStore();
    const c = new BudgetCounter(store);
    store.down = true;
    c.hit(policy, 'k', T0);
    await c.reconcile(T0);
    store.down = false;
    c.hit(policy, 'k', T0 + 61_000);
    await c.reconcile(T0 + 61_000);
    expect(store.totals.get(`budget.test:k:${T0 / 60_000}`)).toBe(1);
    expect(store.totals.get(`budget.test:k:${T0 / 60_000 + 1}`)).toBe(1);
    await c.reconcile(T0 + 200_000);
    expect(c.size).toBe(0);
  });
});
