import { randomBytes } from 'node:crypto';
import Bull, { type Queue } from 'bull';
import Redis from 'ioredis';
import { BullDriver } from '@/core/queue/drivers/bull.driver';
import type { JobDefinition } from '@/core/queue/job-definition';
import { QUEUE_NAMES, type QueueName } from '@/core/queue/queues';
import { runId, TEST_REDIS_PREFIX, TEST_REDIS_URL } from '../../support/test-env';
import { waitUntil } from '../../support/wait';

/**
 * Closing the Bull driver on the real Redis: Bull's own close asked each queue's blocking connection to QUIT while
 * it waited in BRPOPLPUSH, and Redis answers that only after the BRPOPLPUSH, so every queue's close waited for
 * Bull's 500 ms timeout. The driver drops that connection instead; these tests hold what must not change with it.
 */
const IMPORTS: JobDefinition<unknown> = {
  name: 'probe.import',
  queue: 'imports',
  attempts: 3,
  backoffMs: 1000,
  sensitive: false,
};

type Blocking = {
  status: string;
  stream?: { writable: boolean };
  blocked?: boolean;
  commandQueue: { length: number };
  quit: (...args: unknown[]) => Promise<unknown>;
};

describe('closing the Bull driver (integration)', () => {
  const prefix = `${TEST_REDIS_PREFIX}:${runId()}:queue-close-${randomBytes(3).toString('hex')}:bull`;
  const opened: Queue[] = [];

  function driver(): { driver: BullDriver; queues: Map<QueueName, Queue> } {
    const queues = new Map(QUEUE_NAMES.map((name) => [name, new Bull(name, TEST_REDIS_URL, { prefix })]));
    opened.push(...queues.values());
    return { driver: new BullDriver(queues), queues };
  }

  afterAll(async () => {
    await Promise.allSettled(opened.map((q) => q.close()));
  });

  it('never sends QUIT on a blocking connection still waiting in BRPOPLPUSH', async () => {
    const { driver: idle, queues } = driver();
    idle.startProcessing(() => Promise.resolve());
    const blockingOf = (q: Queue): Blocking => (q as unknown as { bclient: Blocking }).bclient;
    await waitUntil(
      () => [...queues.values()].every((q) => blockingOf(q).blocked && blockingOf(q).status === 'ready'),
      {
        what: 'every queue waiting for jobs',
      },
    );
    const quitsWhileWaiting: string[] = [];
    for (const [name, q] of queues) {
      const blocking = blockingOf(q);
      const quit = blocking.quit.bind(blocking);
      blocking.quit = (...args: unknown[]) => {
        // Written on the open socket behind a pending BRPOPLPUSH, Redis answers QUIT only after it.
        if (blocking.stream?.writable && blocking.commandQueue.length > 0) quitsWhileWaiting.push(name);
        return quit(...args);
      };
    }
    await idle.close();
    expect(quitsWhileWaiting).toEqual([]);
    for (const q of queues.values()) expect(blockingOf(q).status).toBe('end');
  });

  it('waits for the job it is running, and a job queued after it closed runs in the next process', async () => {
    const ran: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = driver().driver;
    first.startProcessing(async (id) => {
      ran.push(`started ${id}`);
      if (id === 'a') await held;
      ran.push(`done ${id}`);
    });
    await first.dispatch('a', IMPORTS, 0);
    await waitUntil(() => ran.includes('started a'), { what: 'job a to start' });

    const closing = first.close().then(() => ran.push('closed'));
    // Bull's close waits for the running job: let the queues' connections answer before the job ends.
    const probe = new Redis(TEST_REDIS_URL);
    await probe.ping();
    await probe.quit();
    expect(ran).toEqual(['started a']);
    release();
    await closing;
    expect(ran).toEqual(['started a', 'done a', 'closed']);

    const producer = driver().driver;
    await producer.dispatch('b', IMPORTS, 0);
    await producer.close();
    expect(ran).not.toContain('started b');

    const next = driver().driver;
    next.startProcessing((id) => {
      ran.push(`started ${id}`);
      ran.push(`done ${id}`);
      return Promise.resolve();
    });
    await waitUntil(() => ran.includes('done b'), { what: 'job b in the next process' });
    await next.close();
    expect(ran).toEqual(['started a', 'done a', 'closed', 'started b', 'done b']);
  });
});
