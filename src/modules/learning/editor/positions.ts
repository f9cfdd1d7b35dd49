/**
 * Lesson order rules. Positions are 1-based and always contiguous (1..n): inserting at a position shifts the lesson
 * there and every later one down by one, moving a lesson shifts the ones in between, deleting closes the gap.
 */

/** The message for a position outside 1..max, or null when it is valid. */
export function positionProblem(position: number, max: number): string | null {
  return Number.isInteger(position) && position >= 1 && position <= max
    ? null
    : `position must be between 1 and ${max}`;
}

/** The order after inserting `id` at `position` (1..n+1; absent appends). */
export function insertAt<T>(order: readonly T[], id: T, position?: number): T[] {
  const index = position === undefined ? order.length : position - 1;
  if (index < 0 || index > order.length) throw new RangeError(`position ${position} outside 1..${order.length + 1}`);
  return [...order.slice(0, index), id, ...order.slice(index)];
}

/** The order after moving `id` to `position` (1..n). */
export function moveTo<T>(order: readonly T[], id: T, position: number): T[] {
  const from = order.indexOf(id);
  if (from < 0) throw new RangeError('not in the order');
  if (position < 1 || position > order.length) throw new RangeError(`position ${position} outside 1..${order.length}`);
  const rest = order.filter((_, i) => i !== from);
  return [...rest.slice(0, position - 1), id, ...rest.slice(position - 1)];
}

/** The order after removing `id` (positions renumbered from 1). */
export function removeFrom<T>(order: readonly T[], id: T): T[] {
  return order.filter((x) => x !== id);
}
