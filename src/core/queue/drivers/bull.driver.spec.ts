import type { Queue } from 'bull';
import { QUEUE_NAMES, type QueueName } from '../queues';
import { BullDriver, TICK_JOB } from './bull.driver';

type Processor = (job: { name: string; data: { id?: string } }) => Promise<void>;

/** Just enough of a Bull queue to see what the driver registers and to hand it jobs. */
function fakeQueue(): Queue & { processor?: Processor; added: unknown[][] } {
  const queue = {
    added: [] as unknown[][],
    processor: undefined as Processor | undefined,
    add: jest.fn((...args: unknown[]) => {
      queue.added.push(args);
      return Promise.resolve({});
    }),
    process: jest.fn((_name: string, _concurrency: number, handler: Processor) => {
      queue.processor = handler;
      return Promise.resolve();
    }),
    on: jest.fn(),
  };
  return queue as unknown as Queue & { processor?: Processor; added: unknown[][] };
}

describe('BullDriver ticker', () => {
  let queues: Map<QueueName, ReturnType<typeof fakeQueue>>;
  let driver: BullDriver;
  const tickJob = { name: TICK_JOB, data: {} };

  beforeEach(() => {
    queues = new Map(QUEUE_NAMES.map((name) => [name, fakeQueue()]));
    driver = new BullDriver(queues);
  });

  it('registers one repeatable job at every minute (UTC) on the default queue, retried within the minute', async () => {
    const stop = driver.startTicker(() => Promise.resolve());
    expect(queues.get('default')!.added).toEqual([
      [
        TICK_JOB,
        {},
        expect.objectContaining({
          repeat: { cron: '* * * * *', tz: 'UTC' },
          attempts: 3,
          backoff: { type: 'fixed', delay: 5_000 },
        }),
      ],
    ]);
    for (const [name, queue] of queues) if (name !== 'default') expect(queue.added).toEqual([]);
    await stop();
  });

  it('a tick job runs the scheduler; one taken before it started (or after it stopped) fails so Bull retries it', async () => {
    const executor = jest.fn(() => Promise.resolve());
    driver.startProcessing(executor);
    const processor = queues.get('default')!.processor!;
    await expect(processor(tickJob)).rejects.toThrow(/not running/);

    const onTick = jest.fn(() => Promise.resolve());
    const stop = driver.startTicker(onTick);
    await processor(tickJob);
    expect(onTick).toHaveBeenCalledTimes(1);
    expect(executor).not.toHaveBeenCalled();

    await stop();
    await expect(processor(tickJob)).rejects.toThrow(/not running/);
    expect(onTick).toHaveBeenCalledTimes(1);
  });

  it('other jobs go to the executor with their outbox id', async () => {
    const executor = jest.fn(() => Promise.resolve());
    driver.startProcessing(executor);
    await queues.get('mail')!.processor!({ name: 'mail.send', data: { id: 'job-1' } });
    expect(executor).toHaveBeenCalledWith('job-1');
  });
});
