import { randomUUID } from 'node:crypto';
import { EventDispatcher } from '@/core/events/event-dispatcher';
import { EventsRepository } from '@/core/events/events.repository';
import { probeState } from './support/probe.module';
import { createTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

describe('domain events (core machinery)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());
  beforeEach(() => {
    probeState.events = [];
    probeState.eventFailures = 0;
    probeState.eventTries = 0;
  });

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
});
