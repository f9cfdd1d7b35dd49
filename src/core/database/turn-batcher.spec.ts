import { TurnBatcher } from './turn-batcher';

describe('TurnBatcher', () => {
  const squares = (calls: number[][]) =>
    new TurnBatcher<number, number>(
      async (keys) => {
        calls.push(keys);
        if (keys.includes(-1)) throw new Error('refused');
        return new Map(keys.filter((k) => k !== 0).map((k) => [k, k * k]));
      },
      { maxKeys: 4 },
    );

  it('answers the keys asked for in one turn with one look-up, each key once, absent keys as null', async () => {
    const calls: number[][] = [];
    const batcher = squares(calls);
    const answers = await Promise.all([2, 3, 2, 0].map((k) => batcher.load(k)));
    expect(answers).toEqual([4, 9, 4, null]);
    expect(calls).toEqual([[2, 3, 0]]);
  });

  it('starts a new look-up for the next turn, and sends a batch as soon as it holds maxKeys keys', async () => {
    const calls: number[][] = [];
    const batcher = squares(calls);
    await batcher.load(1);
    await batcher.load(2);
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map((k) => batcher.load(k)))).toEqual([1, 4, 9, 16, 25, 36]);
    expect(calls).toEqual([[1], [2], [1, 2, 3, 4], [5, 6]]);
  });

  it('while a batch is out, keys of later turns wait for it and then go together', async () => {
    const calls: number[][] = [];
    let release = (): void => undefined;
    const batcher = new TurnBatcher<number, number>(async (keys) => {
      calls.push(keys);
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return new Map(keys.map((k) => [k, k * 10]));
    });
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const first = batcher.load(1);
    await turn();
    const later = [batcher.load(2)];
    await turn();
    later.push(batcher.load(3));
    await turn();
    expect(calls).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(later)).toEqual([20, 30]);
    expect(calls).toEqual([[1], [2, 3]]);
  });

  it('when a batch fails, looks each key up alone: only the refused key fails', async () => {
    const calls: number[][] = [];
    const batcher = squares(calls);
    const settled = await Promise.allSettled([5, -1, 7, -1].map((k) => batcher.load(k)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      25,
      'refused',
      49,
      'refused',
    ]);
    expect(calls).toEqual([[5, -1, 7], [5], [-1], [7]]);
  });
});
