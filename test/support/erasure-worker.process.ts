/*
 * A worker process of its own, for the "worker killed mid-erasure" test: it boots the whole application in worker
 * mode (PROCESS_JOBS on, no HTTP) on the test's database and Redis prefix, with the test erasers of
 * holding-eraser.ts, and holds the first erasure inside the `probe.held` step's transaction. It tells the parent
 * (IPC) when it is ready and when the step is held; the parent then kills it with SIGKILL.
 * Started by test/privacy-erasure-crash.e2e-spec.ts with `node --require ./test/support/swc-register.js`.
 */
import { HoldingErasersModule, holdState } from './holding-eraser';
import { createTestApp } from './test-app';

function send(message: { type: 'ready' | 'held' | 'failed'; detail?: string }): void {
  if (!process.send) throw new Error('Start this script with an IPC channel');
  process.send(message);
}

async function main(): Promise<void> {
  const databaseName = process.env.ERASURE_WORKER_DB;
  const suffix = process.env.ERASURE_WORKER_SUFFIX;
  if (!databaseName || !suffix) throw new Error('ERASURE_WORKER_DB and ERASURE_WORKER_SUFFIX are required');
  holdState.hold = { started: () => send({ type: 'held' }) };
  await createTestApp({
    worker: true,
    databaseName,
    suffix,
    smtp: false,
    env: { PROCESS_JOBS: 'true' },
    imports: [HoldingErasersModule],
  });
  send({ type: 'ready' });
}

main().catch((err: unknown) => {
  send({ type: 'failed', detail: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
