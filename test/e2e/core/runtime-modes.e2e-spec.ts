import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '@migrations';
import { runMigrationsLocked } from '@/core/database/migrate';
import { QUEUE_DRIVER, type QueueDriver } from '@/core/queue/drivers/queue-driver';
import { JobsService } from '@/core/queue/jobs.service';
import { PROBE_JOB, probeState } from '../../support/probe.module';
import { createTestApp, type TestApp } from '../../support/test-app';
import { ADMIN_DATABASE_URL, databaseUrl, runId } from '../../support/test-env';
import { waitUntil } from '../../support/wait';

async function jobStatus(t: TestApp, id: string): Promise<string> {
  const [row] = await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [id]);
  return row.status as string;
}

describe('runtime modes', () => {
  describe('readiness', () => {
    it('answers 503 in the envelope while the database refuses connections, and 200 once it is back', async () => {
      const t = await createTestApp();
      const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
      await admin.connect();
      try {
        await t.http().get('/ready').expect(200);
        await admin.query(`ALTER DATABASE "${t.dbName}" ALLOW_CONNECTIONS false`);
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [t.dbName]);
        const res = await t.http().get('/ready').expect(503);
        expect(res.body.error).toMatchObject({ code: 'service_unavailable', request_id: res.headers['x-request-id'] });
        expect(res.body.error.message).toContain('database');
        await t.http().get('/health').expect(200, { status: 'ok' });
        await admin.query(`ALTER DATABASE "${t.dbName}" ALLOW_CONNECTIONS true`);
        await waitUntil(async () => (await t.http().get('/ready')).status === 200, { what: 'readiness to recover' });
      } finally {
        await admin.query(`ALTER DATABASE "${t.dbName}" ALLOW_CONNECTIONS true`);
        await admin.end();
        await t.close();
      }
    });

    it('answers 503 naming the queue and cache when Redis does not respond; /health stays 200', async () => {
      const t = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1/0' } });
      try {
        const res = await t.http().get('/ready').expect(503);
        expect(res.body.error.code).toBe('service_unavailable');
        expect(res.body.error.message).toMatch(/queue.*cache/);
        await t.http().get('/health').expect(200);
      } finally {
        await t.close();
      }
    });
  });

  describe('API and worker roles', () => {
    it('an API instance with PROCESS_JOBS=false only enqueues; a worker process runs the job', async () => {
      const api = await createTestApp({ env: { PROCESS_JOBS: 'false' } });
      let worker: TestApp | undefined;
      try {
        const id = await api.app
          .get(JobsService)
          .enqueue(PROBE_JOB, { key: 'for-worker', failTimes: 0 }, { organizationId: null });
        await api.app.get(JobsService).settled();
        expect(await api.app.get<QueueDriver>(QUEUE_DRIVER).holds(id, PROBE_JOB)).toBe(true);
        expect(await jobStatus(api, id)).toBe('pending');
        expect(probeState.runs.get('for-worker')).toBeUndefined();

        worker = await createTestApp({ worker: true, databaseName: api.dbName, suffix: api.suffix });
        await waitUntil(() => probeState.done.get('for-worker'), { what: 'the worker to run the job' });
        await waitUntil(async () => (await jobStatus(api, id)) === 'completed');
        expect(probeState.runs.get('for-worker')).toBe(1);
      } finally {
        await worker?.close();
        await api.close();
      }
    });
  });

  describe('migrations', () => {
    it('two instances migrating one empty database at once apply each migration exactly once', async () => {
      const name = `lp_test_${runId()}_lock`;
      const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name}"`);
      const sources = [0, 1].map(
        () =>
          new DataSource({
            type: 'postgres',
            url: databaseUrl(name),
            migrations: MIGRATIONS,
            migrationsTableName: 'migrations',
          }),
      );
      try {
        await Promise.all(sources.map((s) => s.initialize()));
        const results = await Promise.all(sources.map((s) => runMigrationsLocked(s)));
        expect(results.map((r) => r.length).sort()).toEqual([0, MIGRATIONS.length]);
        const rows = await sources[0].query(`SELECT name FROM migrations ORDER BY id`);
        expect(rows.map((r: { name: string }) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
      } finally {
        await Promise.all(sources.map((s) => s.destroy()));
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.end();
      }
    });
  });

  describe('embedded mode (no DATABASE_URL, no REDIS_URL, no SMTP_URL)', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lp-embedded-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    it('migrates PGlite at start, serves requests and runs background jobs in-process; a restart keeps data and resumes jobs', async () => {
      const first = await createTestApp({ embedded: true, redis: false, smtp: false, dataDir });
      let pendingId: string;
      try {
        await first.http().get('/health').expect(200);
        await first.http().get('/ready').expect(200, { status: 'ok' });
        const applied = await first.db.query(`SELECT name FROM migrations ORDER BY id`);
        expect(applied.map((r: { name: string }) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
        expect(first.app.get<QueueDriver>(QUEUE_DRIVER).kind).toBe('in-process');

        const { id } = (
          await first.http().post('/api/v1/_probe/enqueue').send({ key: 'embedded', failTimes: 1 }).expect(201)
        ).body;
        await waitUntil(() => probeState.done.get('embedded'), { what: 'in-process job' });
        expect(probeState.runs.get('embedded')).toBe(2); // failed once, retried in-process
        await waitUntil(async () => (await jobStatus(first, id)) === 'completed');

        // Leave a job behind: written to the outbox but never handed to the driver (a crash before dispatch).
        const driver = first.app.get<QueueDriver>(QUEUE_DRIVER);
        const dispatch = jest.spyOn(driver, 'dispatch').mockResolvedValue(undefined);
        pendingId = await first.app
          .get(JobsService)
          .enqueue(PROBE_JOB, { key: 'after-restart', failTimes: 0 }, { organizationId: null });
        await first.app.get(JobsService).settled();
        dispatch.mockRestore();
      } finally {
        await first.close();
      }
      expect(probeState.runs.get('after-restart')).toBeUndefined();

      const second = await createTestApp({ embedded: true, redis: false, smtp: false, dataDir });
      try {
        await waitUntil(() => probeState.done.get('after-restart'), { what: 'job resumed after restart' });
        await waitUntil(async () => (await jobStatus(second, pendingId)) === 'completed');
        const [{ count }] = await second.db.query(`SELECT count(*)::int AS count FROM jobs WHERE status = 'completed'`);
        expect(count).toBe(2);
      } finally {
        await second.close();
      }
    }, 240_000);
  });
});
