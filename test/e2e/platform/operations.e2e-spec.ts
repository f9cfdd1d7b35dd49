import { JobsService } from '@/core/queue/jobs.service';
import { PROBE_JOB } from '../../support/probe.module';
import type { SignedIn } from '../../support/auth';
import { adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ADMIN_EMAIL = 'queues-admin@ops.test';

describe('Operations: the queue dashboard and the outbox list', () => {
  describe('with Redis', () => {
    let t: TestApp;
    let admin: SignedIn;
    let student: SignedIn;

    beforeAll(async () => {
      t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL } });
      admin = await adult(t, ADMIN_EMAIL);
      student = await adult(t);
    });
    afterAll(() => t.close());

    it('bull-board opens for a platform admin session and lists every queue', async () => {
      const page = await admin.agent.get('/admin/queues').expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      const api = await admin.agent.get('/admin/queues/api/queues').expect(200);
      const names = (api.body.queues as { name: string }[]).map((q) => q.name).sort();
      expect(names).toEqual(['ai', 'default', 'documents', 'imports', 'mail', 'notifications', 'webhooks']);
    });

    it('refuses no session (401), a non-admin (403) and a bearer token even of an admin (401)', async () => {
      expect((await t.http().get('/admin/queues').expect(401)).body.error.code).toBe('unauthorized');
      expect((await t.http().get('/admin/queues/api/queues').expect(401)).body.error.code).toBe('unauthorized');
      expect((await student.agent.get('/admin/queues').expect(403)).body.error.code).toBe('forbidden');
      expect((await student.agent.get('/admin/queues/api/queues').expect(403)).body.error.code).toBe('forbidden');
      const org = await createOrganization(t, admin, 'Ops org');
      const token = await personalToken(t, admin, org, 'read');
      await bearer(t, token).get('/admin/queues/api/queues').expect(401);
    });

    it('GET /api/v1/admin/jobs lists due, delayed and failed outbox rows, without payloads', async () => {
      const jobs = t.app.get(JobsService);
      const id = await jobs.enqueue(
        PROBE_JOB,
        { key: 'ops-delayed', failTimes: 0 },
        { organizationId: null, delayMs: 3_600_000 },
      );
      const res = await admin.agent.get('/api/v1/admin/jobs').query({ queue: PROBE_JOB.queue }).expect(200);
      const row = (res.body.items as { id: string }[]).find((r) => r.id === id);
      expect(row).toEqual({
        id,
        queue: PROBE_JOB.queue,
        name: PROBE_JOB.name,
        organization_id: null,
        status: 'pending',
        attempts: 0,
        max_attempts: 4,
        run_after: expect.any(String),
        last_error: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(res.body.total).toBeGreaterThanOrEqual(1);
      await t.db.query(`UPDATE jobs SET status = 'failed', last_error = 'Error: boom' WHERE id = $1`, [id]);
      const failed = await admin.agent.get('/api/v1/admin/jobs').query({ status: 'failed' }).expect(200);
      expect(failed.body.items).toEqual([expect.objectContaining({ id, status: 'failed', last_error: 'Error: boom' })]);
      const pending = await admin.agent.get('/api/v1/admin/jobs').expect(200);
      expect((pending.body.items as { id: string }[]).some((r) => r.id === id)).toBe(false);
    });

    it('the outbox list: 403 for others, 422 for an unknown status or queue', async () => {
      await student.agent.get('/api/v1/admin/jobs').expect(403);
      await t.http().get('/api/v1/admin/jobs').expect(401);
      for (const query of [{ status: 'completed' }, { queue: 'nope' }, { limit: 0 }]) {
        const res = await admin.agent.get('/api/v1/admin/jobs').query(query).expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
    });
  });

  describe('without Redis', () => {
    let t: TestApp;
    let admin: SignedIn;
    beforeAll(async () => {
      t = await createTestApp({ redis: false, env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL } });
      admin = await adult(t, ADMIN_EMAIL);
    });
    afterAll(() => t.close());

    it('has no Bull queues to show (404), and the outbox list still answers', async () => {
      const res = await admin.agent.get('/admin/queues').expect(404);
      expect(res.body.error.message).toMatch(/admin\/jobs/);
      await admin.agent.get('/api/v1/admin/jobs').expect(200);
    });
  });
});
