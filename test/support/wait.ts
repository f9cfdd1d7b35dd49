import { JobsService } from '@/core/queue/jobs.service';
import type { TestApp } from './test-app';

/**
 * Waits for an asynchronous outcome (a background job finishing) by polling a condition. It never asserts on
 * elapsed time: the timeout only turns a hang into a clear failure.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 15_000, intervalMs = 25, what = 'condition' } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Waits until the application has no background work due (by its Clock): every hand-off to the queue driver
 * done, no outbox job pending or running, no domain-event delivery pending or held. A test that proves something
 * did NOT happen (a second mail, a delivery to a disabled endpoint) waits for this instead of a fixed pause: once
 * nothing is left to run, nothing more will happen.
 */
export async function backgroundIdle(t: TestApp, what = 'background work to finish'): Promise<void> {
  await waitUntil(
    async () => {
      await t.app.get(JobsService).settled();
      const [{ busy }] = await t.db.query<{ busy: number }[]>(
        `SELECT (SELECT count(*) FROM jobs WHERE status IN ('pending', 'running') AND run_after <= $1)
              + (SELECT count(*) FROM domain_event_deliveries
                 WHERE status = 'pending' AND (run_after <= $1 OR locked_until IS NOT NULL)) AS busy`,
        [t.clock.now()],
      );
      return Number(busy) === 0;
    },
    { what },
  );
}

/**
 * Sends something that may be missed while a listener is still starting (a message on a Redis stream whose reader
 * has not issued its first read yet) again and again until `arrived` settles: the condition is the arrival itself.
 */
export async function resendUntil<T>(
  send: () => void,
  arrived: Promise<T>,
  { intervalMs = 50, timeoutMs = 15_000 } = {},
): Promise<T> {
  let done = false;
  const settled = arrived.finally(() => {
    done = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!done) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for a resent message to arrive');
    send();
    await Promise.race([settled.catch(() => undefined), new Promise((r) => setTimeout(r, intervalMs))]);
  }
  return settled;
}
