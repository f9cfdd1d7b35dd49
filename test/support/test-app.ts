import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleMetadata } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { Client } from 'pg';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { AppModule } from '@/apps/app.module';
import type { AppConfig } from '@/config/app-config';
import { loadConfig } from '@/config/load-config';
import { Clock, ManualClock } from '@/core/clock/clock';
import { prepareApp } from '@/apps/configure-app';
import { JobsRecovery } from '@/core/queue/jobs-recovery';
import { JobsService } from '@/core/queue/jobs.service';
import { MailSink } from './mail-sink';
import { ProbeModule } from './probe.module';
import { startS3Server, type S3Server } from './s3-server';
import {
  ADMIN_DATABASE_URL,
  databaseUrl,
  runId,
  TEST_REDIS_PREFIX,
  TEST_REDIS_URL,
  templateDatabase,
} from './test-env';

export interface TestAppOptions {
  /** Extra or overriding environment variables. */
  env?: Record<string, string | undefined>;
  /** Use Redis (default) or run with no REDIS_URL. */
  redis?: boolean;
  /** More test-only modules mounted beside the application (the probe module always is). */
  imports?: NonNullable<ModuleMetadata['imports']>;
  /** Reuse an existing database instead of a fresh copy of the template (two processes on one database). */
  databaseName?: string;
  /** Reuse a Redis key prefix suffix (two processes sharing queues). */
  suffix?: string;
  /** Do not listen on a port (a worker process). */
  worker?: boolean;
  /** Embedded mode: no DATABASE_URL (PGlite under dataDir). */
  embedded?: boolean;
  /** Keep data here (reused across boots to test a restart); default a fresh temporary folder. */
  dataDir?: string;
  /** Do not start the SMTP sink, leave SMTP_URL unset (mail goes to the log). */
  smtp?: boolean;
  /** Providers replaced by these values (an injected timeout shortened, for instance). */
  overrides?: { provide: unknown; useValue: unknown }[];
  /** Reach PostgreSQL through this local port (a fault-injecting proxy in front of the real server). */
  databasePort?: number;
  /** Database settings computed from the file's database name (a pooler in front of it, for one). */
  databaseEnv?: (databaseName: string) => Record<string, string>;
  /** Start the test clock this far ahead (a process booting after time has passed, before its first job runs). */
  clockOffsetMs?: number;
  /**
   * The file store: `file` (default, a folder under the data dir) or `s3` (a real S3 server on loopback, started
   * for this app and stopped by `close`). Another process sharing the files passes the same `env.STORAGE_URL`.
   */
  storage?: 'file' | 's3';
}

export interface TestApp {
  dbName: string;
  suffix: string;
  app: NestExpressApplication;
  config: AppConfig;
  clock: ManualClock;
  mail: MailSink;
  baseUrl: string;
  /** The S3 server of `storage: 's3'` (null otherwise). */
  s3: S3Server | null;
  /** The application's own data source (real PostgreSQL, this file's database). */
  db: DataSource;
  /** Plain supertest against the server. */
  http: () => TestAgent;
  /** A client with its own cookie jar and its own client address (X-Forwarded-For), so limits never collide. */
  client: (ip?: string) => TestAgent;
  /** A fresh unique client address. */
  nextIp: () => string;
  /** A fresh unique email address. */
  nextEmail: (prefix?: string) => string;
  close: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

let ipCounter = 0;
let emailCounter = 0;

/**
 * Boots the whole application as production does (same modules, same HTTP setup) on a copy of the run's
 * migrated template database, a Redis key prefix of its own and a real SMTP sink. One per test file.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const suffix = options.suffix ?? randomBytes(4).toString('hex');
  const ownsDatabase = options.databaseName === undefined && !options.embedded;
  const dbName = options.databaseName ?? `${templateDatabase().replace(/_tpl$/, '')}_${suffix}`;
  if (ownsDatabase) {
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDatabase()}"`);
    await admin.end();
  }

  const mail = new MailSink();
  if (options.smtp !== false) await mail.start();
  const s3 = options.storage === 's3' ? await startS3Server() : null;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lp-test-'));
  const env: Record<string, string | undefined> = {
    NODE_ENV: 'test',
    PORT: String(port),
    DATABASE_URL: options.embedded ? undefined : databaseUrl(dbName, options.databasePort),
    DATABASE_POOL_SIZE: '5',
    REDIS_URL: options.redis === false ? undefined : TEST_REDIS_URL,
    REDIS_KEY_PREFIX: `${TEST_REDIS_PREFIX}:${runId()}:${suffix}`,
    SMTP_URL: options.smtp === false ? undefined : mail.url,
    MAIL_FROM: 'Learning Platform <no-reply@test.local>',
    BASE_URL: baseUrl,
    WEB_URL: 'http://web.test',
    APP_URL: 'http://app.test',
    TRUST_PROXY: 'true',
    AUTH_SECRET: 'test-auth-secret-0123456789-abcdefghijklmnop',
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    ...s3?.env,
    // Request budgets count and answer their fields in every suite, at quotas no suite that is not about budgets
    // reaches (many suites send everything from one address); test/budgets.e2e-spec.ts sets the real ones.
    API_BUDGET_TOKEN_PER_MINUTE: '1000000',
    API_BUDGET_SESSION_PER_MINUTE: '1000000',
    API_BUDGET_ANONYMOUS_PER_MINUTE: '1000000',
    ...options.databaseEnv?.(dbName),
    ...options.env,
  };
  const config = loadConfig(env);
  const clock = new ManualClock();
  if (options.clockOffsetMs) clock.advance(options.clockOffsetMs);
  let builder = Test.createTestingModule({
    imports: [AppModule.forRoot(config), ProbeModule, ...(options.imports ?? [])],
  })
    .overrideProvider(Clock)
    .useValue(clock);
  for (const { provide, useValue } of options.overrides ?? [])
    builder = builder.overrideProvider(provide).useValue(useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  await prepareApp(app, config);
  if (!options.worker) await app.listen(port, '127.0.0.1');
  const server = app.getHttpServer();

  const nextIp = (): string => {
    ipCounter++;
    return `10.${(process.pid >> 8) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
  };
  const client = (ip = nextIp()): TestAgent => request.agent(server).set('X-Forwarded-For', ip);

  return {
    dbName,
    suffix,
    app,
    config,
    clock,
    mail,
    baseUrl,
    s3,
    db: app.get(DataSource),
    http: () => request(server),
    client,
    nextIp,
    nextEmail: (prefix = 'user') => `${prefix}.${suffix}.${++emailCounter}@example.test`,
    close: async () => {
      await app.get(JobsService).settled();
      await app.get(JobsRecovery).stop();
      await app.close();
      await mail.stop();
      await s3?.stop();
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
      if (!ownsDatabase) return;
      const dropper = new Client({ connectionString: ADMIN_DATABASE_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await dropper.end();
    },
  };
}
