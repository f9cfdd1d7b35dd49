/*
 * One instance of the service in a process of its own, for the multi-process suite (5.2): an API instance (HTTP,
 * Socket.IO, `PROCESS_JOBS=false`, SIGTERM drains as main.ts does) or a worker (jobs only), on the parent test's
 * database and Redis prefix. Tells the parent (IPC) its address once it listens.
 * Started with `node --require ./test/support/swc-register.js`; env APP_PROCESS: JSON of AppProcessOptions.
 */
import { installGracefulShutdown } from '@/core/http/shutdown';
import { createTestApp } from './test-app';

export interface AppProcessOptions {
  role: 'api' | 'worker';
  databaseName: string;
  suffix: string;
  dataDir: string;
  env: Record<string, string>;
}

export type AppProcessMessage = { type: 'ready'; baseUrl: string } | { type: 'failed'; detail: string };

function send(message: AppProcessMessage): void {
  if (!process.send) throw new Error('Start this script with an IPC channel');
  process.send(message);
}

async function main(): Promise<void> {
  const raw = process.env.APP_PROCESS;
  if (!raw) throw new Error('APP_PROCESS is required');
  const o = JSON.parse(raw) as AppProcessOptions;
  const t = await createTestApp({
    worker: o.role === 'worker',
    databaseName: o.databaseName,
    suffix: o.suffix,
    dataDir: o.dataDir,
    smtp: false,
    env: { ...o.env, PROCESS_JOBS: o.role === 'worker' ? 'true' : 'false' },
  });
  if (o.role === 'api') installGracefulShutdown(t.app, t.config);
  else t.app.enableShutdownHooks(['SIGTERM']);
  send({ type: 'ready', baseUrl: t.baseUrl });
}

main().catch((err: unknown) => {
  send({ type: 'failed', detail: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
