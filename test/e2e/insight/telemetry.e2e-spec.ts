import { TelemetrySampler, TelemetryService } from '@/modules/insight/telemetry';
import type { SignedIn } from '../../support/auth';
import { adult } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ADMIN_EMAIL = 'telemetry-admin@ops.test';
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

type Body = Record<string, unknown>;

/** A sampler the test controls. */
class FixedSampler extends TelemetrySampler {
  keepAll = true;
  constructor() {
    super(1);
  }
  override keep(): boolean {
    return this.keepAll;
  }
}

/**
 * Telemetry (extensions-v2 21): vitals and errors without personal data (route normalization, scrubbing, no address,
 * account or user agent stored), sampling, limits, the admin views (p75 by nearest rank, error groups) and pruning.
 */
describe('telemetry', () => {
  let t: TestApp;
  let admin: SignedIn;
  const sampler = new FixedSampler();

  const vital = (over: Body = {}): Body => ({ name: 'LCP', value: 1000, rating: 'good', route: '/home', ...over });

  beforeAll(async () => {
    t = await createTestApp({
      env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL },
      overrides: [{ provide: TelemetrySampler, useValue: sampler }],
    });
    admin = await adult(t, ADMIN_EMAIL);
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    sampler.keepAll = true;
    await t.db.query(`DELETE FROM telemetry_vitals`);
    await t.db.query(`DELETE FROM telemetry_errors`);
  });

  it('stores vitals with the normalized route, device class and browser major only', async () => {
    const res = await admin.agent
      .post('/api/v1/telemetry/vitals')
      .set('User-Agent', UA)
      .send({
        release: 'web@1.2.3',
        events: [
          vital({ route: '/org/1b4e28ba-2fa1-11d2-883f-0016d3cca427/courses?email=ana@example.org#x' }),
          vital({
            name: 'CLS',
            value: 0.12,
            rating: 'needs-improvement',
            route: '/u/ana@example.org',
            navigation_type: 'reload',
          }),
          vital({ route: '/bad route with spaces' }),
        ],
      });
    expect([res.status, res.body]).toEqual([202, { accepted: 2 }]);
    expect(res.headers['set-cookie']).toBeUndefined();
    const rows = await t.db.query(`SELECT * FROM telemetry_vitals ORDER BY id`);
    expect(
      rows.map((r: Body) => [r.route, r.metric, r.value, r.rating, r.navigation_type, r.device, r.browser, r.release]),
    ).toEqual([
      ['/org/:id/courses', 'LCP', 1000, 'good', null, 'desktop', 'Chrome 126', 'web@1.2.3'],
      ['/u/:email', 'CLS', 0.12, 'needs-improvement', 'reload', 'desktop', 'Chrome 126', 'web@1.2.3'],
    ]);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain('ana@example.org');
    expect(dump).not.toContain(admin.user.id);
    // Neither the OS version nor the full browser version of the user agent (a time stamp may hold "10.").
    expect(dump).not.toContain('NT 10.0');
    expect(dump).not.toContain('126.0.0.0');
    expect(Object.keys(rows[0]).sort()).toEqual(
      [
        'browser',
        'created_at',
        'device',
        'id',
        'metric',
        'navigation_type',
        'rating',
        'release',
        'route',
        'value',
      ].sort(),
    );
  });

  it('validates vitals: 1..50 events, value bounds, enums (422 stores nothing)', async () => {
    for (const [body, status] of [
      [{ events: [] }, 422],
      [{ events: Array.from({ length: 51 }, () => vital()) }, 422],
      [{ events: Array.from({ length: 50 }, () => vital()) }, 202],
      [{ events: [vital({ value: -1 })] }, 422],
      [{ events: [vital({ value: 600000 })] }, 202],
      [{ events: [vital({ value: 600001 })] }, 422],
      [{ events: [vital({ name: 'CLS', value: 10 })] }, 202],
      [{ events: [vital({ name: 'CLS', value: 10.01 })] }, 422],
      [{ events: [vital({ name: 'FID' })] }, 422],
      [{ events: [vital({ rating: 'meh' })] }, 422],
      [{ events: [vital({ navigation_type: 'teleport' })] }, 422],
      [{ release: 'r'.repeat(65), events: [vital()] }, 422],
    ] as [Body, number][]) {
      const res = await t.client().post('/api/v1/telemetry/vitals').send(body);
      expect(res.status).toBe(status);
    }
    expect((await t.db.query(`SELECT count(*)::int AS n FROM telemetry_vitals`))[0].n).toBe(52);
  });

  it('scrubs client errors: no email, token, address or long number is stored', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl';
    const res = await t
      .client()
      .post('/api/v1/telemetry/errors')
      .set('User-Agent', UA)
      .send({
        route: '/profile/ana@example.org?token=svc_live_abc',
        message: `Failed for ana@example.org with svc_live_SECRET123 from 192.168.1.20 order 1234567`,
        stack: `Error\n    at load (https://app.test/main.js?session=${jwt}:10:5)\n    at run (app.js:2:1)\n    Bearer ${jwt}`,
        kind: 'unhandledrejection',
      });
    expect([res.status, res.body]).toEqual([202, { accepted: 1 }]);
    const rows = await t.db.query(`SELECT route, message, stack, kind, fingerprint FROM telemetry_errors`);
    expect(rows).toHaveLength(1);
    expect(rows[0].route).toBe('/profile/:email');
    expect(rows[0].message).toBe('Failed for [email] with [token] from [ip] order [n]');
    expect(rows[0].stack).not.toContain(jwt);
    expect(rows[0].stack).not.toContain('session=');
    expect(rows[0].kind).toBe('unhandledrejection');
    const dump = JSON.stringify(rows);
    for (const secret of ['ana@example.org', 'svc_live_', '192.168.1.20', '1234567', jwt])
      expect(dump).not.toContain(secret);
  });

  it('validates errors (message 1..1000, stack up to 8000)', async () => {
    for (const [body, status] of [
      [{ route: '/x', message: '' }, 422],
      [{ route: '/x', message: 'm'.repeat(1000) }, 202],
      [{ route: '/x', message: 'm'.repeat(1001) }, 422],
      [{ route: '/x', message: 'm', stack: 's'.repeat(8001) }, 422],
      [{ message: 'm' }, 422],
      [{ route: '/x', message: 'm', kind: 'warning' }, 422],
    ] as [Body, number][]) {
      expect((await t.client().post('/api/v1/telemetry/errors').send(body)).status).toBe(status);
    }
  });

  it('sampling: events not kept are still accepted requests, with accepted 0', async () => {
    sampler.keepAll = false;
    const res = await t
      .client()
      .post('/api/v1/telemetry/vitals')
      .send({ events: [vital(), vital()] });
    expect([res.status, res.body]).toEqual([202, { accepted: 0 }]);
    expect((await t.client().post('/api/v1/telemetry/errors').send({ route: '/x', message: 'm' })).body).toEqual({
      accepted: 0,
    });
    expect((await t.db.query(`SELECT count(*)::int AS n FROM telemetry_vitals`))[0].n).toBe(0);
  });

  it('rate limits: vitals 60 per minute per address, errors 30', async () => {
    const client = t.client();
    for (let i = 0; i < 60; i++)
      await client
        .post('/api/v1/telemetry/vitals')
        .send({ events: [vital()] })
        .expect(202);
    expect((await client.post('/api/v1/telemetry/vitals').send({ events: [vital()] })).status).toBe(429);
    const other = t.client();
    for (let i = 0; i < 30; i++)
      await other.post('/api/v1/telemetry/errors').send({ route: '/x', message: 'm' }).expect(202);
    expect((await other.post('/api/v1/telemetry/errors').send({ route: '/x', message: 'm' })).status).toBe(429);
  });

  it('admin vitals: p75 by nearest rank per route and metric, samples, good share', async () => {
    // Values 1..8 on /a: nearest rank ceil(0.75 * 8) = 6th value = 6. Three of eight good.
    const events = [1, 2, 3, 4, 5, 6, 7, 8].map((v) =>
      vital({ route: '/a', value: v, rating: v <= 3 ? 'good' : 'poor' }),
    );
    await t.client().post('/api/v1/telemetry/vitals').send({ release: 'r1', events }).expect(202);
    await t
      .client()
      .post('/api/v1/telemetry/vitals')
      .send({ release: 'r2', events: [vital({ route: '/b', name: 'INP', value: 40 })] })
      .expect(202);
    const res = await admin.agent.get('/api/v1/admin/telemetry/vitals').expect(200);
    expect(res.body.period).toBe('day');
    expect(res.body.items).toEqual([
      { route: '/a', metric: 'LCP', p75: 6, samples: 8, good_share: 0.375 },
      { route: '/b', metric: 'INP', p75: 40, samples: 1, good_share: 1 },
    ]);
    const filtered = await admin.agent
      .get('/api/v1/admin/telemetry/vitals')
      .query({ release: 'r2', period: 'week' })
      .expect(200);
    expect(filtered.body.items.map((i: Body) => i.route)).toEqual(['/b']);
    expect(Date.parse(filtered.body.to) - Date.parse(filtered.body.from)).toBe(7 * 86_400_000);
    const byRoute = await admin.agent.get('/api/v1/admin/telemetry/vitals').query({ route: '/a' }).expect(200);
    expect(byRoute.body.items).toHaveLength(1);
    await t.client().get('/api/v1/admin/telemetry/vitals').expect(401);
    const stranger = await adult(t);
    await stranger.agent.get('/api/v1/admin/telemetry/vitals').expect(403);
  });

  it('admin errors: grouped by fingerprint, most frequent first; pruned after 30 days', async () => {
    const send = (message: string, line: number, route = '/x', release = 'r1') =>
      t
        .client()
        .post('/api/v1/telemetry/errors')
        .send({ route, release, message, stack: `Error\n    at f (a.js:${line}:1)` })
        .expect(202);
    await send('Boom 1', 10);
    await send('Boom 2', 11, '/y', 'r2');
    await send('Other', 3);
    const res = await admin.agent.get('/api/v1/admin/telemetry/errors').expect(200);
    expect(res.body.total).toBe(2);
    expect(res.body.items[0]).toMatchObject({
      message: 'Boom 2',
      routes: ['/x', '/y'],
      releases: ['r1', 'r2'],
      count: 2,
    });
    expect(res.body.items[1]).toMatchObject({ message: 'Other', count: 1 });
    await t.db.query(`UPDATE telemetry_errors SET created_at = now() - interval '31 days' WHERE message = 'Other'`);
    await t.app.get(TelemetryService).prune();
    expect((await t.db.query(`SELECT count(*)::int AS n FROM telemetry_errors`))[0].n).toBe(2);
  });
});
