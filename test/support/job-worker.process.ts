/*
 * A plain worker process for fault tests: boots the whole application in worker mode (PROCESS_JOBS on, no HTTP) on
 * the parent test's database and Redis prefix, sending mail to the parent's SMTP sink, and tells the parent (IPC)
 * when it is ready. The parent kills it with SIGKILL mid-work and starts another.
 * Started with `node --require ./test/support/swc-register.js`; env: JOB_WORKER_DB, JOB_WORKER_SUFFIX, JOB_WORKER_SMTP,
 * and JOBS_LOCK_MS passed on when set.
 */
import { createTestApp } from './test-app';

function send(message: { type: 'ready' | 'failed'; detail?: string }): void {
  if (!process.send) throw new Error('Start this script with an IPC channel');
  process.send(message);
}

async function main(): Promise<void> {
  const databaseName = process.env.JOB_WORKER_DB;
  const suffix = process.env.JOB_WORKER_SUFFIX;
  const smtp = process.env.JOB_WORKER_SMTP;
  if (!databaseName || !suffix || !smtp)
    throw new Error('JOB_WORKER_DB, JOB_WORKER_SUFFIX and JOB_WORKER_SMTP are required');
  await createTestApp({
    worker: true,
    databaseName,
    suffix,
    smtp: false,
    env: { PROCESS_JOBS: 'true', SMTP_URL: smtp, JOBS_LOCK_MS: process.env.JOBS_LOCK_MS },
  });
  send({ type: 'ready' });
}

main().catch((err: unknown) => {
  send({ type: 'failed', detail: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
