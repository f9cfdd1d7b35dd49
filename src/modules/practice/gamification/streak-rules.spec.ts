import { currentStreak, EMPTY_STREAK, evaluate, recordActive, type StreakState } from './streak-rules';

/** Replays a person's days: `active` dates, reading the streak on each day of `through`. */
function replay(
  active: string[],
  days: string[],
): { date: string; current: number; freezes: number; state: StreakState }[] {
  const set = new Set(active);
  let state = EMPTY_STREAK;
  const out = [];
  for (const today of days) {
    state = evaluate(state, today, (d) => set.has(d)).state;
    if (set.has(today)) state = recordActive(state, today);
    state = evaluate(state, today, (d) => set.has(d)).state;
    const current = currentStreak(state, today, set.has(today));
    state = { ...state, longest: Math.max(state.longest, current) };
    out.push({ date: today, current, freezes: state.freezes, state });
  }
  return out;
}

const range = (from: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) =>
    new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
  );

describe('streak rules (extensions-v2 3.4)', () => {
  it('the example of the spec: Thursday frozen, Friday counts 4, Sunday broken', () => {
    // 2026-11-02 is a Monday. The first active day grants one freeze; the next Monday is outside the example.
    const days = range('2026-11-02', 7);
    const r = replay(['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-06'], days);
    expect(r.map((x) => x.current)).toEqual([1, 2, 3, 3, 4, 4, 0]);
    expect(r[4].freezes).toBe(0);
    expect(r[6].state.longest).toBe(4);
  });

  it('a Monday grants a freeze (never above 2) before the day is judged', () => {
    // Active Sun 2026-11-08 (first: 1 freeze), Mon 9 grants (2), Mon 16 would grant a third: capped.
    const days = range('2026-11-08', 10);
    const r = replay(range('2026-11-08', 9), days);
    expect(r[1].freezes).toBe(2);
    expect(r[8].freezes).toBe(2);
    expect(r[8].current).toBe(9);
    // Then 2 idle days are frozen, the third breaks.
    const r2 = replay(range('2026-11-08', 9), range('2026-11-08', 13));
    expect(r2.map((x) => x.current).slice(8)).toEqual([9, 9, 9, 9, 0]);
  });

  it('nothing before the first activity', () => {
    expect(currentStreak(evaluate(EMPTY_STREAK, '2026-11-10', () => false).state, '2026-11-10', false)).toBe(0);
  });
});
