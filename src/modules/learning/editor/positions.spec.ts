import { insertAt, moveTo, positionProblem, removeFrom } from './positions';

const order = ['a', 'b', 'c', 'd'];

describe('lesson positions', () => {
  it('insertAt appends without a position and shifts the rest from the given one', () => {
    expect(insertAt(order, 'x')).toEqual(['a', 'b', 'c', 'd', 'x']);
    expect(insertAt(order, 'x', 1)).toEqual(['x', 'a', 'b', 'c', 'd']);
    expect(insertAt(order, 'x', 3)).toEqual(['a', 'b', 'x', 'c', 'd']);
    expect(insertAt(order, 'x', 5)).toEqual(['a', 'b', 'c', 'd', 'x']);
    expect(insertAt([], 'x', 1)).toEqual(['x']);
    expect(() => insertAt(order, 'x', 6)).toThrow(RangeError);
    expect(() => insertAt(order, 'x', 0)).toThrow(RangeError);
  });

  it('moveTo moves down and up, shifting only the lessons in between', () => {
    expect(moveTo(order, 'a', 3)).toEqual(['b', 'c', 'a', 'd']);
    expect(moveTo(order, 'd', 1)).toEqual(['d', 'a', 'b', 'c']);
    expect(moveTo(order, 'b', 4)).toEqual(['a', 'c', 'd', 'b']);
    expect(moveTo(order, 'c', 3)).toEqual(order);
    expect(() => moveTo(order, 'a', 5)).toThrow(RangeError);
    expect(() => moveTo(order, 'z', 1)).toThrow(RangeError);
  });

  it('removeFrom closes the gap', () => {
    expect(removeFrom(order, 'b')).toEqual(['a', 'c', 'd']);
    expect(removeFrom(['a'], 'a')).toEqual([]);
  });

  it('positionProblem accepts exactly 1..max', () => {
    expect(positionProblem(1, 4)).toBeNull();
    expect(positionProblem(4, 4)).toBeNull();
    expect(positionProblem(5, 4)).toBe('position must be between 1 and 4');
    expect(positionProblem(0, 4)).toBe('position must be between 1 and 4');
    expect(positionProblem(1.5, 4)).not.toBeNull();
  });
});
