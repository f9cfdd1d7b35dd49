import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventDispatcher, EVENT_LEASE_MS } from '@/core/events/event-dispatcher';
import { EventsRepository } from '@/core/events/events.repository';
import { makeCourse } from '../../cross-tenant/learning.routes';
import { deferred, PROBE_EFFECTS_DDL, probeState } from '../../support/probe.module';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

function resetProbe(): void {
  probeState.events = [];
  probeState.eventFailures = 0;
  probeState.eventTries = 0;
  probeState.ledgerApplied = [];
  probeState.ledgerHold = undefined;
}

async function effectsOf(t: TestApp, eventId: string): Promise<number> {
  const [row] = await t.db.query(`SELECT count(*)::int AS n FROM probe_effects WHERE event_id = $1`, [eventId]);
  return row.n as number;
}

async function delivery(t: TestApp, eventId: string, subscriber: string) {
  return (await t.app.get(EventsRepository).deliveriesOf(eventId)).find((d) => d.subscriber === subscriber);
}

describe('domain events (core machinery)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());
  beforeEach(resetProbe);
  afterEach(() => t.clock.reset());

  it('delivers a committed event to its subscriber once', async () => {
    const courseId = randomUUID();
    const res = await t.http().post('/api/v1/_probe/publish').send({ user_id: randomUUID(), course_id: courseId });
    expect(res.status).toBe(201);
    await waitUntil(() => probeState.events.some((e) => e.payload.course_id === courseId), { what: 'delivery' });
    const delivered = probeState.events.find((e) => e.payload.course_id === courseId)!;
    expect(delivered).toMatchObject({ id: res.body.id, name: 'course.rated', version: 1, payload: { stars: 5 } });
    expect(delivered.occurred_at).toBeInstanceOf(Date);
    const [row] = await t.app.get(EventsRepository).deliveriesOf(res.body.id);
    expect(row).toMatchObject({ subscriber: 'probe.course_rated', status: 'done', attempts: 1 });
  });

  it('publishes nothing for a rolled-back fact', async () => {
    const courseId = randomUUID();
    const res = await t
      .http()
      .post('/api/v1/_probe/publish')
      .send({ user_id: randomUUID(), course_id: courseId, fail: true });
    expect(res.status).toBe(409);
    const rows = await t.db.query(`SELECT count(*)::int AS n FROM domain_events WHERE payload->>'course_id' = $1`, [
      courseId,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('retries a throwing subscriber after its backoff, by the Clock', async () => {
    probeState.eventFailures = 1;
    const courseId = randomUUID();
    const res = await t.http().post('/api/v1/_probe/publish').send({ user_id: randomUUID(), course_id: courseId });
    const repo = t.app.get(EventsRepository);
    await waitUntil(async () => (await repo.deliveriesOf(res.body.id))[0]?.last_error, { what: 'first failure' });
    expect(probeState.events).toHaveLength(0);
    t.clock.advance(2_001);
    await t.app.get(EventDispatcher).drain();
    await waitUntil(() => probeState.events.length === 1, { what: 'retry' });
    expect((await repo.deliveriesOf(res.body.id))[0]).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('a real fact and its events commit together or not at all (the transaction fails after the publish)', async () => {
    const owner = await adult(t);
    const org = await createOrganization(t, owner, 'Atomic');
    const learner = await adult(t);
    await addMember(t, org, learner.user.id, 'student');
    const course = await makeCourse(t, owner.user.id, { title: 'Doomed course', issues_certificate: true });
    const lesson = `/api/v1/organizations/${org}/courses/${course.id}/lessons/${course.lessons[0].id}/complete`;
    await learner.agent.post(`/api/v1/organizations/${org}/courses/${course.id}/enroll`).expect(201);
    // The certificate is the last write of the completing transaction: lesson.completed and course.completed
    // are already published in it when the insert fails.
    await t.db.query(`CREATE FUNCTION probe_refuse_certificate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'probe: certificate refused'; END $$`);
    await t.db.query(`CREATE TRIGGER probe_refuse_certificate BEFORE INSERT ON issued_certificates FOR EACH ROW
      WHEN (NEW.title = 'Doomed course') EXECUTE FUNCTION probe_refuse_certificate()`);
    const facts = async () => {
      const [row] = await t.db.query(
        `SELECT (SELECT count(*)::int FROM lesson_completions WHERE user_id = $1::uuid) AS completions,
                (SELECT status FROM enrollments WHERE user_id = $1::uuid) AS enrollment,
                (SELECT count(*)::int FROM issued_certificates WHERE user_id = $1::uuid) AS certificates,
                (SELECT array_agg(name ORDER BY name) FROM domain_events WHERE payload->>'user_id' = $1::text
                  AND name IN ('lesson.completed', 'course.completed', 'certificate.issued')) AS events`,
        [learner.user.id],
      );
      return row;
    };
    try {
      const failed = await learner.agent.post(lesson).expect(500);
      expect(failed.body.error.code).toBe('internal_error');
      expect(await facts()).toEqual({
        completions: 0,
        enrollment: 'active',
        certificates: 0,
        events: null,
      });
    } finally {
      await t.db.query(`DROP TRIGGER probe_refuse_certificate ON issued_certificates`);
      await t.db.query(`DROP FUNCTION probe_refuse_certificate()`);
    }
    await learner.agent.post(lesson).expect(200);
    expect(await facts()).toMatchObject({
      completions: 1,
      enrollment: 'completed',
      certificates: 1,
      events: ['certificate.issued', 'course.completed', 'lesson.completed'],
    });
  });

  describe('delivery under failure (dispatcher driven by the test: no background loop)', () => {
    let api: TestApp;
    beforeAll(async () => {
      api = await createTestApp({ env: { PROCESS_JOBS: 'false' } });
      await api.db.query(PROBE_EFFECTS_DDL);
    });
    afterAll(() => api.close());
    afterEach(() => api.clock.reset());

    const publish = async (count = 1): Promise<string[]> => {
      const res = await api
        .http()
        .post('/api/v1/_probe/publish')
        .send({ user_id: randomUUID(), course_id: randomUUID(), count })
        .expect(201);
      return res.body.ids as string[];
    };

    it('a throwing subscriber is retried with backoff by the Clock, then marked failed after maxAttempts; the other subscriber of the event is unaffected', async () => {
      probeState.eventFailures = 99;
      const [id] = await publish();
      const dispatcher = api.app.get(EventDispatcher);
      expect(await dispatcher.runOnce()).toBe(2); // both subscribers' deliveries
      expect(await delivery(api, id, 'probe.course_rated_ledger')).toMatchObject({ status: 'done', attempts: 1 });
      expect(await effectsOf(api, id)).toBe(1);
      expect(await delivery(api, id, 'probe.course_rated')).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_error: 'Error: planned subscriber failure',
      });
      // Backoff 2 s after the first try, 4 s after the second: not due halfway through, due once it has passed.
      for (const backoff of [2_000, 4_000]) {
        api.clock.advance(backoff / 2);
        expect(await dispatcher.runOnce()).toBe(0);
        api.clock.advance(backoff / 2);
        expect(await dispatcher.runOnce()).toBe(1);
      }
      expect(probeState.eventTries).toBe(3);
      expect(await delivery(api, id, 'probe.course_rated')).toMatchObject({
        status: 'failed',
        attempts: 3,
        last_error: 'Error: planned subscriber failure',
      });
      api.clock.advance(86_400_000);
      expect(await dispatcher.runOnce()).toBe(0);
      expect(probeState.events).toHaveLength(0);
      expect(await delivery(api, id, 'probe.course_rated_ledger')).toMatchObject({ status: 'done', attempts: 1 });
      expect(await effectsOf(api, id)).toBe(1);
    });

    it('a throwing subscriber that recovers ends done, its effect applied once', async () => {
      probeState.eventFailures = 2;
      const [id] = await publish();
      const dispatcher = api.app.get(EventDispatcher);
      await dispatcher.runOnce();
      api.clock.advance(2_000);
      await dispatcher.runOnce();
      api.clock.advance(4_000);
      await dispatcher.runOnce();
      expect(await delivery(api, id, 'probe.course_rated')).toMatchObject({ status: 'done', attempts: 3 });
      expect(probeState.events.map((e) => e.id)).toEqual([id]);
    });

    it('a redelivered event is applied once: a lease expires while a handler is slow and a second dispatcher takes over', async () => {
      // One claim takes both ledger deliveries; the first is held inside its transaction (after writing its effect),
      // so the second waits behind it with a lease that expires by the Clock.
      const held = deferred();
      const release = deferred();
      probeState.ledgerHold = { remaining: 1, started: held.resolve, release: release.promise };
      const ids = await publish(2);
      const dispatcher = api.app.get(EventDispatcher);
      const first = dispatcher.runOnce();
      await held.promise;
      // The other probe subscriber's deliveries (claimed by the same pass) finish first, so only the ledger's count.
      await waitUntil(
        async () => {
          const rows = await Promise.all(ids.map((id) => delivery(api, id, 'probe.course_rated')));
          return rows.every((d) => d?.status === 'done');
        },
        { what: 'the other subscriber' },
      );
      api.clock.advance(EVENT_LEASE_MS + 1);
      // The second pass, concurrent with the first: the held delivery is locked by its transaction (skipped); the
      // queued one's lease has expired, so it is claimed again and delivered.
      expect(await dispatcher.runOnce()).toBe(1);
      release.resolve();
      await first;
      // The first pass reached the queued delivery after the second had applied it: its attempt changed nothing.
      for (const id of ids) {
        expect(await effectsOf(api, id)).toBe(1);
        expect(await delivery(api, id, 'probe.course_rated_ledger')).toMatchObject({ status: 'done' });
      }
      const attempts = await Promise.all(
        ids.map(async (id) => (await delivery(api, id, 'probe.course_rated_ledger'))!.attempts),
      );
      expect(attempts.sort()).toEqual([1, 2]);
      expect(probeState.ledgerApplied.sort()).toEqual([...ids].sort());
      api.clock.advance(EVENT_LEASE_MS + 1);
      expect(await dispatcher.runOnce()).toBe(0);
    });

    it('a worker process killed (SIGKILL) mid-delivery loses nothing: its lease expires by the Clock and another process delivers once', async () => {
      let child: ChildProcess | undefined;
      const messages: { type: string; detail?: string }[] = [];
      try {
        child = fork(join(__dirname, '..', '..', 'support', 'event-worker.process.ts'), [], {
          cwd: join(__dirname, '..', '..', '..'),
          execArgv: ['--require', join(__dirname, '..', '..', 'support', 'swc-register.js')],
          env: { ...process.env, EVENT_WORKER_DB: api.dbName, EVENT_WORKER_SUFFIX: api.suffix },
          stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        });
        let stderr = '';
        child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('message', (m) => messages.push(m as { type: string; detail?: string }));
        const exited = new Promise<NodeJS.Signals | null>((resolve) =>
          child!.once('exit', (_code, sig) => resolve(sig)),
        );
        await waitUntil(() => messages.find((m) => m.type === 'ready' || m.type === 'failed'), {
          what: `the worker process to start ${stderr}`,
          timeoutMs: 90_000,
        });
        expect(messages.find((m) => m.type === 'failed')?.detail).toBeUndefined();

        // The API instance publishes; only the worker process runs deliveries.
        const [id] = await publish();
        await waitUntil(() => messages.some((m) => m.type === 'held'), { what: 'the worker to hold the delivery' });
        const leased = await delivery(api, id, 'probe.course_rated_ledger');
        expect(leased).toMatchObject({ status: 'pending', attempts: 1 });
        child.kill('SIGKILL');
        expect(await exited).toBe('SIGKILL');

        // The dead worker's transaction (its effect and its "done") rolled back; the lease still holds the delivery.
        const dispatcher = api.app.get(EventDispatcher);
        await waitUntil(async () => (await effectsOf(api, id)) === 0, { what: 'the killed transaction to end' });
        await dispatcher.drain();
        expect(await delivery(api, id, 'probe.course_rated_ledger')).toMatchObject({ status: 'pending', attempts: 1 });

        api.clock.advance(EVENT_LEASE_MS + 1_000);
        await waitUntil(
          async () => {
            await dispatcher.drain();
            return (await delivery(api, id, 'probe.course_rated_ledger'))?.status === 'done';
          },
          { what: 'the delivery by this process' },
        );
        expect(await delivery(api, id, 'probe.course_rated_ledger')).toMatchObject({ status: 'done', attempts: 2 });
        expect(await effectsOf(api, id)).toBe(1);
        expect(probeState.ledgerApplied).toEqual([id]);
        expect(await delivery(api, id, 'probe.course_rated')).toMatchObject({ status: 'done' });
      } finally {
        if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    }, 180_000);
  });
});
