import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { MailService } from '@/core/mail/mail.service';
import { JobsRecovery } from '@/core/queue/jobs-recovery';
import { SIGN_IN_CODE } from '@/modules/identity/auth/testing';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A Redis server of this test's own (the machine's shared one is never touched), keeping nothing on disk. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  await waitUntil(
    async () => {
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        probe.disconnect();
        return false;
      }
    },
    { what: 'redis-server to answer' },
  );
  probe.disconnect();
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Redis killed and restarted (empty: it keeps nothing on disk) in the middle of a burst of emails: every email is
 * still sent, and sent once. The outbox in PostgreSQL is the record; the recovery sweep (every 30 s in a running
 * service, called directly here) hands the jobs Redis lost back to the queue.
 */
describe('Faults: Redis restarted during a burst of emails', () => {
  let port: number;
  let redis: ChildProcess;
  let t: TestApp;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await createTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await t.close();
    await stopRedis(redis);
  });

  it('sends every email exactly once', async () => {
    const mail = t.app.get(MailService);
    const addresses = Array.from({ length: 60 }, (_, i) => `burst-${i}@faults.test`);
    const send = (to: string): Promise<string> =>
      mail.send(SIGN_IN_CODE, { code: '123456' }, { to, locale: 'en', organizationId: null });

    for (const to of addresses.slice(0, 30)) await send(to);
    await waitUntil(() => t.mail.messages.length >= 5, { what: 'the first emails' });
    await stopRedis(redis);
    // Written to the outbox while Redis is down: their dispatch fails and is left to the sweep.
    for (const to of addresses.slice(30)) await send(to);
    redis = await startRedis(port);

    const recovery = t.app.get(JobsRecovery);
    await waitUntil(
      async () => {
        await recovery.sweep(0);
        return addresses.every((a) => t.mail.to(a).length > 0);
      },
      { what: 'every email sent after Redis came back', timeoutMs: 60_000 },
    );
    // Settle: nothing more arrives, and no address got two.
    await recovery.sweep(0);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM jobs WHERE status <> 'completed'`);
    expect(n).toBe(0);
    for (const a of addresses) expect(t.mail.to(a)).toHaveLength(1);
  }, 120_000);
});
