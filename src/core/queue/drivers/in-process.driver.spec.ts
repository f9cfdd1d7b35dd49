import { InProcessDriver } from './in-process.driver';

/** The scheduler's timer without Redis: one tick at the start of each wall-clock minute. */
describe('InProcessDriver ticker', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    jest.setSystemTime(new Date('2026-03-02T10:00:20.000Z'));
  });
  afterEach(() => jest.useRealTimers());

  it('ticks at the start of the next minute, then once a minute', async () => {
    const ticks: string[] = [];
    const stop = new InProcessDriver().startTicker(() => {
      ticks.push(new Date().toISOString());
      return Promise.resolve();
    });
    await jest.advanceTimersByTimeAsync(39_999);
    expect(ticks).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(ticks).toEqual(['2026-03-02T10:01:00.000Z']);
    await jest.advanceTimersByTimeAsync(3 * 60_000);
    expect(ticks).toEqual([
      '2026-03-02T10:01:00.000Z',
      '2026-03-02T10:02:00.000Z',
      '2026-03-02T10:03:00.000Z',
      '2026-03-02T10:04:00.000Z',
    ]);
    await stop();
    await jest.advanceTimersByTimeAsync(5 * 60_000);
    expect(ticks).toHaveLength(4);
  });

  it('keeps ticking after a tick fails', async () => {
    let calls = 0;
    const stop = new InProcessDriver().startTicker(() => {
      calls++;
      return Promise.reject(new Error('database down'));
    });
    await jest.advanceTimersByTimeAsync(40_000 + 2 * 60_000);
    expect(calls).toBe(3);
    await stop();
  });

  it('stopping waits for a tick that is running', async () => {
    let release!: () => void;
    let finished = false;
    const stop = new InProcessDriver().startTicker(
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            finished = true;
            resolve();
          };
        }),
    );
    await jest.advanceTimersByTimeAsync(40_000);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
  });
});
