/**
 * Levels from XP (extensions-v2 3.2): the largest n >= 1 with `50 n (n - 1) <= xp`, in integers.
 */
export function levelFloor(level: number): number {
  return 50 * level * (level - 1);
}

export function levelOf(xp: number): number {
  if (xp < 100) return 1;
  // Start from the real root and correct for floating point in both directions.
  let n = Math.floor((1 + Math.sqrt(1 + (4 * xp) / 50)) / 2);
  while (levelFloor(n + 1) <= xp) n++;
  while (n > 1 && levelFloor(n) > xp) n--;
  return n;
}

export interface LevelView {
  xp: number;
  level: number;
  level_floor_xp: number;
  next_level_xp: number;
  progress_percent: number;
}

export function levelView(xp: number): LevelView {
  const level = levelOf(xp);
  const floor = levelFloor(level);
  const next = levelFloor(level + 1);
  return {
    xp,
    level,
    level_floor_xp: floor,
    next_level_xp: next,
    progress_percent: Math.floor((100 * (xp - floor)) / (next - floor)),
  };
}
