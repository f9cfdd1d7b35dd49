/*
 * A worker process of its own, for the "worker killed mid-delivery" test: it boots the whole application in worker
 * mode (PROCESS_JOBS on, no HTTP) on the test's database and Redis prefix, and holds the first delivery of the probe
 * ledger subscriber inside its transaction, after the subscriber wrote its effect. It tells the parent (IPC) when
 * it is ready and when the delivery is held; the parent then kills it with SIGKILL.
 * Started by test/domain-events.e2e-spec.ts with `node --require ./test/support/swc-register.js`.
 */
import { probeState } from './probe.module';
import { createTestApp } from './test-app';

function send(message: { type: 'ready' | 'held' | 'failed'; detail?: string }): void {
  if (!process.send) throw new Error('Start this script with an IPC channel');
  process.send(message);
}

async function main(): Promise<void> {
  const databaseName = process.env.EVENT_WORKER_DB;
  const suffix = process.env.EVENT_WORKER_SUFFIX;
  if (!databaseName || !suffix) throw new Error('EVENT_WORKER_DB and EVENT_WORKER_SUFFIX are required');
  probeState.ledgerHold = {
    remaining: 1,
    started: () => send({ type: 'held' }),
    // Never released: the process is killed while it waits.
    release: new Promise<void>(() => undefined),
  };
  await createTestApp({ worker: true, databaseName, suffix, smtp: false, env: { PROCESS_JOBS: 'true' } });
  send({ type: 'ready' });
}

main().catch((err: unknown) => {
  send({ type: 'failed', detail: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
