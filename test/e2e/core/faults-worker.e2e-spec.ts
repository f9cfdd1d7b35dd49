import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { SignedIn } from '../../support/auth';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { IMPORT_BATCH } from '@/modules/tenancy/member-import';
import { waitUntil } from '../../support/wait';

// Four batches of IMPORT_BATCH (1 000): the kill lands after the first commits, with three still to apply.
const ROWS = 4 * IMPORT_BATCH;

/**
 * A worker process killed with SIGKILL in the middle of a member import: a new worker process finishes it, every
 * row reported once, no one invited twice, one invitation email per address. The API instance runs no jobs
 * (PROCESS_JOBS=false); both workers are real processes on the same database and Redis prefix. They run with
 * JOBS_LOCK_MS = 2 s instead of 30 s (job locks, the stalled-job check and the outbox recovery sweep), so the second
 * worker takes the dead one's work over seconds after the kill instead of a minute and a half.
 */
describe('Faults: the worker killed mid-import', () => {
  let api: TestApp;
  let owner: SignedIn;
  let org: string;
  const children: ChildProcess[] = [];
  let first: ChildProcess;

  async function startWorker(): Promise<ChildProcess> {
    const messages: { type: string; detail?: string }[] = [];
    const child = fork(join(__dirname, '..', '..', 'support', 'job-worker.process.ts'), [], {
      cwd: join(__dirname, '..', '..', '..'),
      execArgv: ['--require', join(__dirname, '..', '..', 'support', 'swc-register.js')],
      env: {
        ...process.env,
        JOB_WORKER_DB: api.dbName,
        JOB_WORKER_SUFFIX: api.suffix,
        JOB_WORKER_SMTP: api.mail.url,
        JOBS_LOCK_MS: '2000',
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('message', (m) => messages.push(m as { type: string; detail?: string }));
    const started = await waitUntil(() => messages.find((m) => m.type === 'ready' || m.type === 'failed'), {
      what: 'a worker process to start',
      timeoutMs: 120_000,
    });
    if (started.type === 'failed') throw new Error(`worker failed to start: ${started.detail} ${stderr}`);
    return child;
  }

  async function kill(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  beforeAll(async () => {
    api = await createTestApp({ env: { PROCESS_JOBS: 'false' } });
    // The API runs no jobs: the sign-in code of the fixture is sent by the first worker.
    first = await startWorker();
    owner = await adult(api);
    org = await createOrganization(api, owner, 'Fault org');
    await api.db.query(`UPDATE organizations SET member_limit = NULL WHERE id = $1`, [org]);
  }, 120_000);
  afterAll(async () => {
    for (const child of children) await kill(child);
    await api.close();
  });

  it('a second worker finishes the import; nothing is lost or duplicated', async () => {
    const emails = Array.from({ length: ROWS }, (_, i) => `row-${i}.${api.suffix}@kill.test`);
    const csv = 'email\n' + emails.join('\n') + '\n';
    const res = await owner.agent
      .post(`/api/v1/organizations/${org}/members/import`)
      .attach('file', Buffer.from(csv, 'utf8'), { filename: 'members.csv', contentType: 'text/csv' })
      .expect(202);
    const id = res.body.id as string;
    const processed = async (): Promise<number> =>
      (
        await api.db.query(
          `SELECT count(*)::int AS n FROM member_import_rows WHERE import_id = $1 AND outcome IS NOT NULL`,
          [id],
        )
      )[0].n;

    await waitUntil(async () => (await processed()) >= 200, {
      what: 'the first rows processed',
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    await kill(first);
    const atKill = await processed();
    expect(atKill).toBeLessThan(ROWS);

    await startWorker();
    const status = await waitUntil(
      async () => {
        const r = await owner.agent.get(`/api/v1/organizations/${org}/members/import/${id}`).expect(200);
        return r.body.status === 'completed' ? r.body : null;
      },
      { what: 'the import finished by the second worker', timeoutMs: 240_000, intervalMs: 500 },
    );
    expect(status).toMatchObject({ total: ROWS, processed: ROWS, invited: ROWS, failed: 0, skipped: 0 });
    const [{ n: invitations, distinct }] = await api.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT lower(email))::int AS distinct FROM invitations WHERE import_id = $1`,
      [id],
    );
    expect(invitations).toBe(ROWS);
    expect(distinct).toBe(ROWS);
    await waitUntil(() => emails.every((e) => api.mail.to(e).length >= 1), {
      what: 'every invitation email',
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    for (const e of emails) expect(api.mail.to(e)).toHaveLength(1);
    expect(atKill).toBeGreaterThanOrEqual(200);
  }, 600_000);
});
