import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { JobsService } from '@/core/queue/jobs.service';
import { ERASURE_LEASE_MS, ErasureService, eraserStep, STEP_FINISH, STEP_OWNERS } from '@/modules/identity/privacy';
import { ERASE_ACCOUNT } from '@/modules/identity/privacy/testing';
import { PersonalDataRegistry } from '@/core/privacy/personal-data';
import { UsersService } from '@/modules/identity/users';
import { HoldingErasersModule, holdState } from '../../support/holding-eraser';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

/**
 * A worker process killed (SIGKILL) in the middle of an erasure (extensions-v2 17.3: "a crash mid-erasure resumes
 * where it stopped"). The API instance here runs no jobs; a real child process takes the erasure job and is killed
 * inside one step's transaction. The steps it committed stay done; the killed step rolled back; once its lease has
 * passed by this process's Clock, the run resumes at that step and finishes, without redoing the earlier ones.
 */
describe('privacy: erasure resumes after the worker is killed mid-run', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await createTestApp({ env: { PROCESS_JOBS: 'false' }, imports: [HoldingErasersModule] });
  });
  afterAll(() => api.close());

  it('keeps the committed steps, rolls the killed one back, and resumes there once the lease has passed', async () => {
    // A person with a consent and a live session, and an erasure that is due.
    const { user } = await api.app.get(UsersService).findOrCreate(api.nextEmail('crash'), 'es');
    await api.app.get(UsersService).recordConsent(user.id, { kind: 'terms', version: '1', granted: true }, null);
    await api.db.query(
      `INSERT INTO sessions (user_id, device, created_at, last_seen_at, expires_at)
       VALUES ($1, 'Phone', now(), now(), now() + interval '1 day')`,
      [user.id],
    );
    const [{ id: erasureId }] = await api.db.query(
      `INSERT INTO account_erasures (user_id, status, requested_at, scheduled_for)
       VALUES ($1, 'scheduled', now() - interval '15 days', now() - interval '1 day') RETURNING id`,
      [user.id],
    );

    let child: ChildProcess | undefined;
    const messages: { type: string; detail?: string }[] = [];
    try {
      child = fork(join(__dirname, '..', '..', 'support', 'erasure-worker.process.ts'), [], {
        cwd: join(__dirname, '..', '..', '..'),
        execArgv: ['--require', join(__dirname, '..', '..', 'support', 'swc-register.js')],
        env: { ...process.env, ERASURE_WORKER_DB: api.dbName, ERASURE_WORKER_SUFFIX: api.suffix },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('message', (m) => messages.push(m as { type: string; detail?: string }));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.once('exit', (_code, sig) => resolve(sig)));
      await waitUntil(() => messages.find((m) => m.type === 'ready' || m.type === 'failed'), {
        what: `the worker process to start ${stderr}`,
        timeoutMs: 90_000,
      });
      expect(messages.find((m) => m.type === 'failed')?.detail).toBeUndefined();

      // This instance enqueues; only the worker process runs jobs.
      await api.app.get(JobsService).enqueue(ERASE_ACCOUNT, { erasure_id: erasureId }, { organizationId: null });
      await waitUntil(() => messages.some((m) => m.type === 'held'), { what: 'the worker to hold the step' });
      const registry = api.app.get(PersonalDataRegistry);
      const before = registry.handlers().filter((h) => h.eraseOrder < 300);
      const [held] = await api.db.query(`SELECT status, steps_done, lease_until FROM account_erasures WHERE id = $1`, [
        erasureId,
      ]);
      expect(held).toMatchObject({
        status: 'running',
        steps_done: [STEP_OWNERS, ...before.map((h) => eraserStep(h.area, h.key))],
        lease_until: expect.any(Date),
      });
      // What the committed steps did is done (sessions and consents gone)...
      expect(await api.db.query(`SELECT 1 FROM sessions WHERE user_id = $1`, [user.id])).toEqual([]);
      expect(await api.db.query(`SELECT 1 FROM consents WHERE user_id = $1`, [user.id])).toEqual([]);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      // ...and the killed step's own write rolled back with it.
      await waitUntil(
        async () => (await api.db.query(`SELECT bio FROM users WHERE id = $1`, [user.id]))[0].bio === null,
        { what: 'the killed transaction to end' },
      );

      // While its lease holds, nobody takes it over; after, this process resumes at the held step.
      const erasure = api.app.get(ErasureService);
      expect(await erasure.run(erasureId)).toBe('skipped');
      api.clock.advance(ERASURE_LEASE_MS + 1_000);
      expect(await erasure.run(erasureId)).toBe('done');
      expect(holdState.calls).toEqual([`held:${user.id}`]); // the counted (early) step was not redone here
      const [done] = await api.db.query(`SELECT status, steps_done FROM account_erasures WHERE id = $1`, [erasureId]);
      expect(done).toEqual({
        status: 'completed',
        steps_done: [STEP_OWNERS, ...registry.handlers().map((h) => eraserStep(h.area, h.key)), STEP_FINISH],
      });
      const [tomb] = await api.db.query(`SELECT email, bio, erased_at FROM users WHERE id = $1`, [user.id]);
      expect(tomb).toEqual({ email: `erased+${user.id}@erased.invalid`, bio: null, erased_at: expect.any(Date) });
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 180_000);
});
