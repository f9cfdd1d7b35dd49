import { levelOf, levelView } from './levels';

describe('levels (extensions-v2 3.2)', () => {
  it('matches the table of the spec', () => {
    const table: [number, number][] = [
      [1, 0],
      [2, 100],
      [3, 300],
      [4, 600],
      [5, 1000],
      [6, 1500],
      [7, 2100],
      [8, 2800],
      [9, 3600],
      [10, 4500],
      [20, 19000],
      [35, 59500],
      [50, 122500],
    ];
    for (const [level, from] of table) {
      expect(levelOf(from)).toBe(level);
      if (from > 0) expect(levelOf(from - 1)).toBe(level - 1);
    }
  });

  it('computes the progress inside the level', () => {
    expect(levelView(0)).toEqual({ xp: 0, level: 1, level_floor_xp: 0, next_level_xp: 100, progress_percent: 0 });
    expect(levelView(99).progress_percent).toBe(99);
    expect(levelView(350)).toEqual({
      xp: 350,
      level: 3,
      level_floor_xp: 300,
      next_level_xp: 600,
      progress_percent: 16,
    });
    expect(levelOf(1e12)).toBeGreaterThan(1000);
    for (let xp = 0; xp < 30_000; xp += 7) {
      const v = levelView(xp);
      expect(v.level_floor_xp <= xp && xp < v.next_level_xp).toBe(true);
    }
  });
});
