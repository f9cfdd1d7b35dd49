import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MailService } from '@/core/mail/mail.service';
import { defineMailTemplate } from '@/core/mail/mail-template';
import type Redis from 'ioredis';
import { AuditService } from '@/core/audit/audit.service';
import { QUEUE_DRIVER, type QueueDriver } from '@/core/queue/drivers/queue-driver';
import { JobsRecovery } from '@/core/queue/jobs-recovery';
import { JobsService } from '@/core/queue/jobs.service';
import { REDIS } from '@/core/redis/redis.module';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PROBE_JOB, PROBE_SECRET_JOB, PROBE_SLOW_JOB, probeState, resetSlowRoute } from '../../support/probe.module';
import { waitUntil } from '../../support/wait';

const greeting = defineMailTemplate<{ name: string }>('test.greeting', {
  es: (p) => ({ subject: `Hola ${p.name}`, heading: 'Hola', paragraphs: [`Bienvenida, ${p.name}.`], code: '123456' }),
  en: (p) => ({ subject: `Hello ${p.name}`, heading: 'Hello', paragraphs: [`Welcome, ${p.name}.`], code: '123456' }),
});

describe('Platform foundation (HTTP core, probes, OpenAPI, queue, mail, audit)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('probes', () => {
    it('GET /health answers ok without touching the database', async () => {
      const res = await t.http().get('/health').expect(200);
      expect(res.body).toEqual({ status: 'ok' });
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('GET /ready answers ok when the database and Redis respond', async () => {
      const res = await t.http().get('/ready').expect(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('GET /version reports version, commit, build time and the newest migration file', async () => {
      const res = await t.http().get('/version').expect(200);
      const newest = readdirSync(join(__dirname, '..', '..', '..', 'migrations'))
        .filter((f) => /^\d{13}-.+\.ts$/.test(f))
        .sort()
        .pop()!
        .replace(/\.ts$/, '');
      expect(res.body).toEqual({
        version: expect.any(String),
        commit: expect.any(String),
        build_time: null, // run from sources; a build fixes it (checked by the build-info unit test)
        migration: newest,
      });
    });

    it('probes carry no /api/v1 prefix', async () => {
      await t.http().get('/api/v1/health').expect(404);
    });
  });

  describe('error envelope and request id', () => {
    it('an unknown route is 404 not_found in the envelope, inside and outside the API prefix', async () => {
      for (const path of ['/api/v1/no-such-thing', '/no-such-thing', '/docs/nothing-here']) {
        const res = await t.http().get(path).expect(404);
        expect(res.body).toEqual({
          error: { code: 'not_found', message: expect.any(String), request_id: res.headers['x-request-id'] },
        });
      }
    });

    it('echoes a sane X-Request-Id and uses it as error.request_id', async () => {
      const res = await t.http().get('/api/v1/nothing').set('X-Request-Id', 'req-42.abc:1').expect(404);
      expect(res.headers['x-request-id']).toBe('req-42.abc:1');
      expect(res.body.error.request_id).toBe('req-42.abc:1');
    });

    it('replaces an unsafe X-Request-Id with a generated one', async () => {
      const res = await t.http().get('/health').set('X-Request-Id', 'bad id <script>');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('malformed JSON is 400 malformed_json', async () => {
      const res = await t
        .http()
        .post('/api/v1/_probe/validate')
        .set('Content-Type', 'application/json')
        .send('{"name": ');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'malformed_json', request_id: res.headers['x-request-id'] });
    });

    it('a body over the limit is 413 payload_too_large', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), count: 1 });
      const res = await t.http().post('/api/v1/_probe/validate').set('Content-Type', 'application/json').send(big);
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });

    it('invalid input is 422 validation_error with one detail per broken rule, unknown fields refused', async () => {
      const res = await t.http().post('/api/v1/_probe/validate').send({ name: 'toolong', count: 11, extra: true });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      const fields = (res.body.error.details as { field: string }[]).map((d) => d.field).sort();
      expect(fields).toEqual(['count', 'extra', 'name']);
    });

    it('valid input passes', async () => {
      await t
        .http()
        .post('/api/v1/_probe/validate')
        .send({ name: 'ok', count: 3 })
        .expect(201, { name: 'ok', count: 3 });
    });

    it('an unexpected error is 500 internal_error with no stack, message or SQL', async () => {
      for (const path of ['/api/v1/_probe/boom', '/api/v1/_probe/db-error']) {
        const res = await t.http().get(path).expect(500);
        expect(res.body).toEqual({
          error: { code: 'internal_error', message: 'Internal server error.', request_id: res.headers['x-request-id'] },
        });
        expect(res.text).not.toMatch(/hunter2|SELECT|secret|no_such_table|at .*\.ts/);
      }
    });

    it('an ApiError keeps its status and code', async () => {
      const res = await t.http().get('/api/v1/_probe/conflict').expect(409);
      expect(res.body.error).toMatchObject({ code: 'conflict', message: 'It conflicts.' });
    });

    it('a non-public route without a credential is 401 unauthorized (deny by default)', async () => {
      const res = await t.http().get('/api/v1/_probe_private').expect(401);
      expect(res.body.error.code).toBe('unauthorized');
    });
  });

  describe('security headers and CORS', () => {
    it('GET /health is answered ahead of the router with its own minimal headers', async () => {
      const res = await t.http().get('/health').set('X-Request-Id', 'probe-1').expect(200);
      expect(res.body).toEqual({ status: 'ok' });
      expect(res.headers['x-request-id']).toBe('probe-1');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const head = await t.http().head('/health').expect(200);
      expect(head.text).toBeUndefined();
      await t.http().post('/health').expect(404);
    });

    it('sets helmet headers on routed responses and hides the framework', async () => {
      const res = await t.http().get('/version');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['content-security-policy']).toBeDefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('allows the web front end with credentials, and no other origin', async () => {
      const ok = await t
        .http()
        .options('/api/v1/auth/me')
        .set('Origin', 'http://web.test')
        .set('Access-Control-Request-Method', 'GET');
      expect(ok.status).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe('http://web.test');
      expect(ok.headers['access-control-allow-credentials']).toBe('true');
      const bad = await t
        .http()
        .options('/api/v1/auth/me')
        .set('Origin', 'http://evil.test')
        .set('Access-Control-Request-Method', 'GET');
      expect(bad.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('rate limiting', () => {
    it('allows exactly the limit, then 429 too_many_requests with Retry-After in seconds', async () => {
      const ip = t.nextIp();
      for (let i = 0; i < 3; i++) {
        const ok = await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', ip).expect(200);
        // IETF RateLimit fields: the policy (quota per window) and what is left of it.
        expect(ok.headers['ratelimit-policy']).toBe('"probe.limited";q=3;w=60');
        expect(ok.headers.ratelimit).toMatch(new RegExp(`^"probe\\.limited";r=${2 - i};t=([1-9]|[1-5][0-9]|60)$`));
      }
      const res = await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', ip).expect(429);
      expect(res.body.error.code).toBe('too_many_requests');
      expect(res.headers['ratelimit-policy']).toBe('"probe.limited";q=3;w=60');
      expect(res.headers.ratelimit).toMatch(/^"probe\.limited";r=0;t=\d+$/);
      const retryAfter = Number(res.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    });

    it('counts per client address taken from X-Forwarded-For (TRUST_PROXY on)', async () => {
      const a = t.nextIp();
      for (let i = 0; i < 3; i++) await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', a).expect(200);
      await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', a).expect(429);
      await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', t.nextIp()).expect(200);
    });

    it('keeps counters in Redis under the configured prefix (shared by instances)', async () => {
      const ip = t.nextIp();
      await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', ip).expect(200);
      const redis = t.app.get<Redis>(REDIS);
      const found = await redis.keys(`${t.config.redis.keyPrefix}:rl:probe.limited*`);
      expect(found.length).toBeGreaterThan(0);
    });
  });

  describe('OpenAPI', () => {
    it('serves Swagger UI at /docs and the document at /docs-json', async () => {
      const ui = await t.http().get('/docs').expect(200);
      expect(ui.text).toContain('swagger-ui');
      const doc = (await t.http().get('/docs-json').expect(200)).body;
      expect(doc.info.version).toBe('1.0.0');
      expect(doc.components.securitySchemes).toEqual({
        cookieAuth: { type: 'apiKey', in: 'cookie', name: 'access_token' },
        bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
        // The SCIM base (/scim/v2) takes only an organization's SCIM token.
        scimToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      });
      expect(doc.components.schemas.ErrorEnvelopeDto).toBeDefined();
      expect(doc.paths['/health'].get.security).toEqual([]);
      expect(doc.paths['/health'].get.tags).toEqual(['health']);
      expect(doc.paths['/ready'].get.responses['503'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorEnvelopeDto',
      });
      expect(doc.paths['/api/v1/_probe_private'].get.security).toEqual([{ cookieAuth: [] }, { bearer: [] }]);
      expect(doc.paths['/api/v1/_probe_private'].get.responses['401']).toBeDefined();
      expect(doc.paths['/api/v1/_probe/limited'].get.responses['429'].description).toContain(
        '3 per minute per client address',
      );
    });
  });

  describe('background jobs (Bull on Redis, outbox in PostgreSQL)', () => {
    it('runs an enqueued job once and records it completed', async () => {
      const { id } = (await t.http().post('/api/v1/_probe/enqueue').send({ key: 'once' }).expect(201)).body;
      await waitUntil(() => probeState.done.get('once'), { what: 'job to run' });
      const row = await waitUntil(async () => {
        const [r] = await t.db.query(`SELECT status, attempts FROM jobs WHERE id = $1`, [id]);
        return r.status === 'completed' ? r : null;
      });
      expect(row).toEqual({ status: 'completed', attempts: 1 });
      expect(probeState.runs.get('once')).toBe(1);
    });

    it('retries a failing job with backoff until it succeeds', async () => {
      const { id } = (await t.http().post('/api/v1/_probe/enqueue').send({ key: 'retry', failTimes: 2 }).expect(201))
        .body;
      await waitUntil(() => probeState.done.get('retry'), { what: 'job to succeed on try 3' });
      expect(probeState.runs.get('retry')).toBe(3);
      expect(probeState.done.get('retry')!.attempt).toBe(3);
      const row = await waitUntil(async () => {
        const [r] = await t.db.query(`SELECT status, attempts FROM jobs WHERE id = $1`, [id]);
        return r.status === 'completed' ? r : null;
      });
      expect(row.attempts).toBe(3);
    });

    it('marks a job failed after its last attempt, with the error recorded', async () => {
      const { id } = (await t.http().post('/api/v1/_probe/enqueue').send({ key: 'doomed', failTimes: 99 }).expect(201))
        .body;
      const row = await waitUntil(async () => {
        const [r] = await t.db.query(`SELECT status, attempts, last_error FROM jobs WHERE id = $1`, [id]);
        return r.status === 'failed' ? r : null;
      });
      expect(row.attempts).toBe(4);
      expect(row.last_error).toContain('planned failure 4');
      expect(probeState.runs.get('doomed')).toBe(4);
    });

    it('re-dispatches a job Redis lost (Redis restarted empty) and runs it exactly once', async () => {
      // A job whose dispatch never reached Redis: written to the outbox, then Redis "loses" it.
      const driver = t.app.get<QueueDriver>(QUEUE_DRIVER);
      const dispatch = jest.spyOn(driver, 'dispatch').mockResolvedValueOnce(undefined);
      const id = await t.app
        .get(JobsService)
        .enqueue(PROBE_JOB, { key: 'lost', failTimes: 0 }, { organizationId: null });
      await t.app.get(JobsService).settled();
      dispatch.mockRestore();
      expect(probeState.runs.get('lost')).toBeUndefined();
      const recovery = t.app.get(JobsRecovery);
      expect(await recovery.sweep(0)).toBeGreaterThanOrEqual(1);
      await waitUntil(() => probeState.done.get('lost'), { what: 'recovered job' });
      // A second sweep finds nothing to redo.
      await waitUntil(
        async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [id]))[0].status === 'completed',
      );
      await recovery.sweep(0);
      expect(probeState.runs.get('lost')).toBe(1);
    });

    it('encrypts a sensitive payload at rest and erases it once the job completes', async () => {
      const id = await t.app
        .get(JobsService)
        .enqueue(PROBE_SECRET_JOB, { secret: 'code-918273' }, { organizationId: null });
      const [stored] = await t.db.query(`SELECT payload::text AS payload FROM jobs WHERE id = $1`, [id]);
      expect(stored.payload ?? '').not.toContain('918273');
      await waitUntil(() => probeState.secrets.includes('code-918273'), { what: 'secret job' });
      const row = await waitUntil(async () => {
        const [r] = await t.db.query(`SELECT status, payload FROM jobs WHERE id = $1`, [id]);
        return r.status === 'completed' ? r : null;
      });
      expect(row.payload).toBeNull();
    });
  });

  describe('mail', () => {
    it('composes the template in the requested language and delivers it over SMTP through the queue', async () => {
      const mail = t.app.get(MailService);
      const es = t.nextEmail('es');
      const en = t.nextEmail('en');
      await mail.send(greeting, { name: 'Ana' }, { to: es, locale: 'es', organizationId: null });
      await mail.send(greeting, { name: 'Ann' }, { to: en, locale: 'en', organizationId: null });
      const m1 = await t.mail.waitForTo(es);
      const m2 = await t.mail.waitForTo(en);
      expect(m1.subject).toBe('Hola Ana');
      expect(m1.text).toContain('Bienvenida, Ana.');
      expect(m1.html).toContain('lang="es"');
      expect(m1.from).toBe('no-reply@test.local');
      expect(m2.subject).toBe('Hello Ann');
      expect(m2.messageId).toMatch(/@127\.0\.0\.1>$/);
    });

    it('escapes values in the HTML part', async () => {
      const to = t.nextEmail('esc');
      await t.app.get(MailService).send(greeting, { name: '<b>x</b>' }, { to, locale: 'en', organizationId: null });
      const m = await t.mail.waitForTo(to);
      expect(m.html).toContain('&lt;b&gt;x&lt;/b&gt;');
      expect(m.html).not.toContain('<b>x</b>');
    });
  });

  describe('audit writer', () => {
    it('stores a keyed fingerprint of the address, never the address', async () => {
      const audit = t.app.get(AuditService);
      await audit.record({
        action: 'probe.done',
        actorId: null,
        organizationId: null,
        ip: '203.0.113.9',
        metadata: { count: 2 },
      });
      const [row] = await t.db.query(`SELECT * FROM audit_log WHERE action = 'probe.done'`);
      expect(row.ip_fingerprint).toMatch(/^[0-9a-f]{32}$/);
      expect(JSON.stringify(row)).not.toContain('203.0.113.9');
      expect(row.metadata).toEqual({ count: 2 });
    });

    it('refuses personal data in metadata', async () => {
      await expect(
        t.app
          .get(AuditService)
          .record({ action: 'probe.bad', actorId: null, organizationId: null, metadata: { email: 'a@b.c' } }),
      ).rejects.toThrow(/personal data/);
    });
  });

  describe('graceful shutdown', () => {
    it('finishes an in-flight request before the server closes', async () => {
      const other = await createTestApp();
      const gate = resetSlowRoute();
      const pending = other
        .http()
        .get('/api/v1/_probe/slow')
        .then((r) => r);
      await gate.started;
      const closing = other.close();
      gate.release();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ finished: true });
      await closing;
    });

    it('waits for a running background job to finish before closing', async () => {
      const other = await createTestApp();
      const started = new Promise<void>((resolve) => (probeState.slowStarted = resolve));
      const id = await other.app
        .get(JobsService)
        .enqueue(PROBE_SLOW_JOB, { key: 'slow-at-shutdown' }, { organizationId: null });
      await started;
      let closed = false;
      const closing = other.close().then(() => (closed = true));
      // The job is still running: closing must not have completed.
      await new Promise((r) => setImmediate(r));
      expect(closed).toBe(false);
      probeState.release!();
      await closing;
      expect(probeState.done.has('slow-at-shutdown')).toBe(true);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});
