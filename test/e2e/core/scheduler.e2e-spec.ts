import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { TICK_JOB } from '@/core/queue/drivers/bull.driver';
import { InProcessDriver } from '@/core/queue/drivers/in-process.driver';
import { QUEUE_DRIVER, type QueueDriver } from '@/core/queue/drivers/queue-driver';
import { JobsService } from '@/core/queue/jobs.service';
import { RUN_SCHEDULE, SchedulerService } from '@/core/queue/scheduler.service';
import { PROBE_SCHEDULE, probeState } from '../../support/probe.module';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const MINUTE = 60_000;
const WEEK = 7 * 24 * 60 * MINUTE;

/** The next Monday 03:07:05 UTC after now, `weeks` later still (each test uses minutes of its own). */
function mondayAt0307(weeks: number): Date {
  const d = new Date();
  d.setUTCHours(3, 7, 5, 0);
  d.setUTCDate(d.getUTCDate() + ((8 - d.getUTCDay()) % 7 || 7));
  return new Date(d.getTime() + weeks * WEEK);
}

/** Moves an app's Clock to `target` (the Clock keeps running from there, as the real one would). */
function setClock(t: TestApp, target: Date): void {
  t.clock.advance(target.getTime() - t.clock.nowMs());
}

async function runsOf(t: TestApp, minute: Date): Promise<{ id: string; status: string }[]> {
  return t.db.query(`SELECT id, status FROM jobs WHERE name = $1 AND dedupe_key = $2`, [
    RUN_SCHEDULE.name,
    `schedule:${PROBE_SCHEDULE.name}:${minute.toISOString()}`,
  ]);
}

async function completed(t: TestApp, minute: Date): Promise<string> {
  return waitUntil(
    async () => {
      const rows = await runsOf(t, minute);
      return rows.length === 1 && rows[0].status === 'completed' ? rows[0].id : null;
    },
    { what: `the run of ${minute.toISOString()}` },
  );
}

const floor = (d: Date): Date => new Date(Math.floor(d.getTime() / MINUTE) * MINUTE);

/**
 * The scheduler of extensions-v2 2.6: each minute's due schedules become one outbox job per (schedule, minute),
 * however many instances tick; the handler gets the minute it runs for. With Redis the tick is a Bull repeatable
 * job; without, a timer in the process.
 */
describe('scheduler', () => {
  describe('two instances on one database and one Redis prefix', () => {
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      a = await createTestApp();
      b = await createTestApp({ databaseName: a.dbName, suffix: a.suffix });
    });
    afterAll(async () => {
      await b.close();
      await a.close();
    });

    it('enqueues a due schedule once per minute when both tick the same minute; the handler gets scheduledAt', async () => {
      probeState.scheduled.length = 0;
      const first = mondayAt0307(0);
      for (const t of [a, b]) setClock(t, first);
      const ticks = await Promise.all([a, b, a, b].map((t) => t.app.get(SchedulerService).tick(t.clock.now())));
      for (const names of ticks) expect(names).toContain(PROBE_SCHEDULE.name);
      const firstId = await completed(a, floor(first));

      for (const t of [a, b]) t.clock.advance(MINUTE); // 03:08, still due
      await Promise.all([a, b].map((t) => t.app.get(SchedulerService).tick(t.clock.now())));
      const secondId = await completed(a, floor(new Date(first.getTime() + MINUTE)));

      for (const t of [a, b]) t.clock.advance(MINUTE); // 03:09, not due
      const late = await Promise.all([a, b].map((t) => t.app.get(SchedulerService).tick(t.clock.now())));
      for (const names of late) expect(names).not.toContain(PROBE_SCHEDULE.name);

      expect(probeState.scheduled).toEqual([
        { scheduledAt: floor(first), jobId: firstId },
        { scheduledAt: new Date(floor(first).getTime() + MINUTE), jobId: secondId },
      ]);
      const [{ n }] = await a.db.query(`SELECT count(*)::int AS n FROM jobs WHERE dedupe_key LIKE $1`, [
        `schedule:${PROBE_SCHEDULE.name}:%`,
      ]);
      expect(n).toBe(2);
    });

    it('a re-run of a minute (an operator, a late tick) is the same job, from either instance', async () => {
      const minute = mondayAt0307(1);
      const ids = await Promise.all([
        a.app.get(SchedulerService).enqueue(PROBE_SCHEDULE, minute),
        b.app.get(SchedulerService).enqueue(PROBE_SCHEDULE, new Date(minute.getTime() + 50_000)),
      ]);
      expect(ids[0]).toBe(ids[1]);
      expect(await completed(b, floor(minute))).toBe(ids[0]);
    });

    it('the Bull repeatable tick is registered once for both, and a fired tick runs the due schedules', async () => {
      const queue = a.app.get<Queue>(getQueueToken('default'));
      const repeatables = await queue.getRepeatableJobs();
      expect(repeatables.filter((r) => r.name === TICK_JOB)).toEqual([
        expect.objectContaining({ name: TICK_JOB, cron: '* * * * *', tz: 'UTC' }),
      ]);
      expect(a.app.get<QueueDriver>(QUEUE_DRIVER).kind).toBe('bull');

      probeState.scheduled.length = 0;
      const minute = mondayAt0307(2);
      for (const t of [a, b]) setClock(t, minute);
      // What Bull does at the start of a minute: one tick job, taken by one of the instances.
      await queue.add(TICK_JOB, {}, { removeOnComplete: true, removeOnFail: true });
      const id = await completed(a, floor(minute));
      expect(probeState.scheduled).toEqual([{ scheduledAt: floor(minute), jobId: id }]);
    });

    it('a run of a schedule that no longer exists completes without doing anything', async () => {
      const id = await a.app
        .get(JobsService)
        .enqueue(
          RUN_SCHEDULE,
          { schedule: 'gone.schedule', minute: new Date().toISOString() },
          { organizationId: null },
        );
      await waitUntil(
        async () => (await a.db.query(`SELECT status FROM jobs WHERE id = $1`, [id]))[0]?.status === 'completed',
        { what: 'the orphan run' },
      );
    });
  });

  describe('without Redis (embedded mode)', () => {
    let t: TestApp;
    let onTick: (() => Promise<unknown>) | undefined;

    beforeAll(async () => {
      const spy = jest.spyOn(InProcessDriver.prototype, 'startTicker');
      try {
        t = await createTestApp({ redis: false });
        expect(spy).toHaveBeenCalledTimes(1);
        onTick = spy.mock.calls[0][0];
      } finally {
        spy.mockRestore();
      }
    });
    afterAll(() => t.close());

    it('the process timer is armed with the scheduler tick, which enqueues and runs due schedules in process', async () => {
      expect(t.app.get<QueueDriver>(QUEUE_DRIVER).kind).toBe('in-process');
      probeState.scheduled.length = 0;
      const minute = mondayAt0307(3);
      setClock(t, minute);
      // What the timer calls at the start of a minute (the timer itself: in-process.driver.spec.ts).
      expect(await onTick!()).toContain(PROBE_SCHEDULE.name);
      await onTick!();
      const id = await completed(t, floor(minute));
      expect(probeState.scheduled).toEqual([{ scheduledAt: floor(minute), jobId: id }]);
    });
  });
});
