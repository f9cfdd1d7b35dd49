import { periodDays, rate, streaks } from './stats.service';

describe('stats rules', () => {
  it('rates are integer percents, half up, null over nothing', () => {
    expect(rate(1, 8)).toBe(13); // 12.5
    expect(rate(1, 3)).toBe(33);
    expect(rate(2, 3)).toBe(67);
    expect(rate(0, 0)).toBeNull();
    expect(rate(5, 5)).toBe(100);
  });

  it('a period of N local days ends today in the zone', () => {
    const now = new Date('2026-03-01T03:00:00Z');
    expect(periodDays(now, 'UTC', 7)).toEqual([
      '2026-02-23',
      '2026-02-24',
      '2026-02-25',
      '2026-02-26',
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
    ]);
    expect(periodDays(now, 'America/New_York', 7).at(-1)).toBe('2026-02-28');
  });

  it('streaks: the current run ends today or yesterday; the longest anywhere', () => {
    const days = ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-10', '2026-01-11'];
    expect(streaks(days, '2026-01-11')).toEqual({ current: 2, longest: 3 });
    expect(streaks(days, '2026-01-12')).toEqual({ current: 2, longest: 3 });
    expect(streaks(days, '2026-01-13')).toEqual({ current: 0, longest: 3 });
    expect(streaks([], '2026-01-13')).toEqual({ current: 0, longest: 0 });
  });
});
