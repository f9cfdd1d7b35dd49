import { createServer } from 'node:net';
import { JobsService } from '@/core/queue/jobs.service';
import { MetricsService } from '@/core/metrics/metrics.service';
import { PROBE_JOB, probeState } from '../../support/probe.module';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const TOKEN = 'metrics-token-0123456789abcdef';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One sample's value from the exposition text (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const labelText = open >= 0 && line.startsWith(`${name}{`) ? line.slice(open + 1, line.indexOf('}')) : '';
    const have = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics (Prometheus)', () => {
  describe('without METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    it('is 404 in the envelope, even with a bearer token', async () => {
      const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
      expect(res.body.error.code).toBe('not_found');
    });
  });

  describe('with METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    });
    afterAll(() => t.close());

    it('refuses a missing or wrong token with 401 and WWW-Authenticate', async () => {
      for (const header of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`]) {
        const req = t.http().get('/metrics');
        if (header) req.set('Authorization', header);
        const res = await req.expect(401);
        expect(res.body.error.code).toBe('unauthorized');
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      }
    });

    it('counts HTTP requests by route template and status, never by concrete path', async () => {
      const org = '0b6f1c2e-7f43-4c1e-9a53-9b1b7a0c5d11';
      await t.http().get('/version').expect(200);
      await t.http().get(`/api/v1/organizations/${org}/members`).expect(401);
      await t.http().get('/no/such/path').expect(404);
      const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.headers['cache-control']).toBe('no-store');
      const text = res.text;
      const count = (route: string, status: string): number | undefined =>
        sample(text, 'http_request_duration_seconds_count', { method: 'GET', route, status });
      expect(count('/version', '200')).toBeGreaterThanOrEqual(1);
      expect(count('/api/v1/organizations/:org_id/members', '401')).toBeGreaterThanOrEqual(1);
      expect(count('unmatched', '404')).toBeGreaterThanOrEqual(1);
      expect(text).not.toContain(org);
    });

    it('reports the process, the pool, the outbox and domain-event deliveries', async () => {
      const text = (await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
      for (const name of [
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_p99_seconds',
        'nodejs_heap_size_used_bytes',
      ]) {
        expect(sample(text, name)).toBeGreaterThanOrEqual(0);
      }
      expect(sample(text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'db_pool_connections', { state: 'busy' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'domain_event_deliveries', { status: 'pending' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'domain_event_deliveries', { status: 'lag_seconds' })).toBeGreaterThanOrEqual(0);
    });

    it('shows a pending job in the queue depth and lag, then its run and failures by queue and job', async () => {
      const jobs = t.app.get(JobsService);
      // A job due in an hour: pending, not yet due (no lag); then one that fails once and succeeds.
      await jobs.enqueue(
        PROBE_JOB,
        { key: 'metrics-later', failTimes: 0 },
        { organizationId: null, delayMs: 3_600_000 },
      );
      let text = (await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
      expect(sample(text, 'jobs_depth', { queue: PROBE_JOB.queue, status: 'pending' })).toBeGreaterThanOrEqual(1);
      await t.db.query(
        `UPDATE jobs SET run_after = now() - interval '90 seconds' WHERE payload->>'key' = 'metrics-later'`,
      );
      text = (await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
      expect(sample(text, 'jobs_oldest_due_seconds', { queue: PROBE_JOB.queue })).toBeGreaterThanOrEqual(89);
      await t.db.query(`DELETE FROM jobs WHERE payload->>'key' = 'metrics-later'`);

      await jobs.enqueue(PROBE_JOB, { key: 'metrics-now', failTimes: 1 }, { organizationId: null });
      await waitUntil(() => probeState.done.get('metrics-now'), { what: 'probe job done' });
      await waitUntil(async () => {
        text = (await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
        return sample(text, 'job_duration_seconds_count', {
          queue: PROBE_JOB.queue,
          job: PROBE_JOB.name,
          outcome: 'completed',
        });
      });
      expect(
        sample(text, 'job_failures_total', { queue: PROBE_JOB.queue, job: PROBE_JOB.name, final: 'false' }),
      ).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'jobs_oldest_due_seconds', { queue: PROBE_JOB.queue })).toBeUndefined();
    });
  });

  describe('with METRICS_PORT, in a worker process', () => {
    let worker: TestApp;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      worker = await createTestApp({ worker: true, env: { METRICS_PORT: String(port) } });
    });
    afterAll(() => worker.close());

    it('serves the text on its own loopback port without a token; anything else there is 404', async () => {
      expect(worker.app.get(MetricsService).listenerPort()).toBe(port);
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(sample(await res.text(), 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
    });
  });
});
