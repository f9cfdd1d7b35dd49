import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleMetadata, Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type Redis from 'ioredis';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { AppConfig } from '@/config/app-config';
import { loadConfig } from '@/config/load-config';
import { Clock, ManualClock } from '@/core/clock/clock';
import { CoreModule } from '@/core/core.module';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { JobRegistry } from '@/core/queue/job-registry';
import { SchedulerService } from '@/core/queue/scheduler.service';
import { REDIS } from '@/core/redis/redis.module';
import {
  ADMIN_DATABASE_URL,
  databaseUrl,
  runId,
  TEST_REDIS_PREFIX,
  TEST_REDIS_URL,
  templateDatabase,
} from './test-env';

/**
 * The middle test layer (test/integration): one area's providers on the real PostgreSQL and Redis, without HTTP.
 * Each file gets a fresh copy of the run's migrated template database (as an e2e file does) and a Redis key prefix
 * of its own; the module holds the core machinery (configuration, database, Redis, events, queue, mail) and only
 * the providers the file names, never another area's module nor the application.
 */
export interface Integration {
  module: TestingModule;
  /** A provider of the module (the area's service or repository under test). */
  get: TestingModule['get'];
  /** The module's own data source: this file's database. */
  db: DataSource;
  redis: Redis;
  clock: StillClock;
  config: AppConfig;
  /** Runs `work` in a transaction, as a service's caller would. */
  tx: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  close: () => Promise<void>;
}

export interface IntegrationOptions {
  /** The area's providers under test (services, repositories, ports). */
  providers: Provider[];
  /** Modules the providers need besides the core (rarely: prefer naming the providers). */
  imports?: NonNullable<ModuleMetadata['imports']>;
  /** Providers replaced by these values (a port answered by a fixture). */
  overrides?: { provide: unknown; useValue: unknown }[];
  env?: Record<string, string | undefined>;
}

/**
 * The job registry of one area's module: the application refuses to start when a declared job has no handler, but a module
 * holding one area's providers has only that area's handlers (another area's jobs are declared by the files
 * imported along). The pairing of the handlers it does find is still checked.
 */
class AreaJobRegistry extends JobRegistry {
  override onModuleInit(): void {
    try {
      super.onModuleInit();
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('Jobs without a handler'))) throw err;
    }
  }
}

/** The same for schedules: another area's schedules are declared without their handlers being loaded. */
class AreaSchedulerService extends SchedulerService {
  override onModuleInit(): void {
    try {
      super.onModuleInit();
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('Schedules without a handler'))) throw err;
    }
  }
}

/**
 * The Clock of an integration module: it stands still where a test puts it (an e2e app's clock runs on from its
 * offset), so two readings within one rule agree to the millisecond and an expectation can be exact.
 */
export class StillClock extends ManualClock {
  private at = Date.now();

  override now(): Date {
    return new Date(this.at);
  }

  override advance(ms: number): void {
    this.at += ms;
  }

  override reset(): void {
    this.at = Date.now();
  }

  set(at: string | Date): void {
    this.at = new Date(at).getTime();
  }
}

export async function createIntegration(options: IntegrationOptions): Promise<Integration> {
  const suffix = randomBytes(4).toString('hex');
  const dbName = `${templateDatabase().replace(/_tpl$/, '')}_i${suffix}`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDatabase()}"`);
  } finally {
    await admin.end();
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'lp-int-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(dbName),
    DATABASE_POOL_SIZE: '4',
    // The template is migrated already.
    MIGRATE_ON_START: 'false',
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: `${TEST_REDIS_PREFIX}:${runId()}:${suffix}`,
    // Nothing runs jobs in the background: a test calls the handler it means.
    PROCESS_JOBS: 'false',
    BASE_URL: 'http://api.test',
    WEB_URL: 'http://web.test',
    APP_URL: 'http://app.test',
    AUTH_SECRET: 'test-auth-secret-0123456789-abcdefghijklmnop',
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    ...options.env,
  });
  const clock = new StillClock();
  let builder = Test.createTestingModule({
    imports: [CoreModule.forRoot(config), ...(options.imports ?? [])],
    providers: options.providers,
  })
    .overrideProvider(Clock)
    .useValue(clock);
  for (const { provide, useValue } of options.overrides ?? [])
    builder = builder.overrideProvider(provide).useValue(useValue);
  builder = builder
    .overrideProvider(JobRegistry)
    .useClass(AreaJobRegistry)
    .overrideProvider(SchedulerService)
    .useClass(AreaSchedulerService);
  let module: TestingModule | undefined;
  try {
    module = await builder.compile();
    await module.init();
  } catch (err) {
    await module?.close().catch(() => undefined);
    await dropDatabase(dbName);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const transactions = module.get(TransactionRunner);
  const built = module;
  return {
    module,
    get: module.get.bind(module),
    db: module.get(DataSource),
    redis: module.get<Redis>(REDIS),
    clock,
    config,
    tx: (work) => transactions.run(work),
    close: async () => {
      await built.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabase(dbName);
    },
  };
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

// ---- rows every area's tests start from (written as the owning areas write them) ----

let counter = 0;

/** A person (an account), with a time zone and locale when the rule under test reads them. */
export async function insertUser(
  db: DataSource,
  p: { timeZone?: string; locale?: string; email?: string } = {},
): Promise<{ id: string; email: string }> {
  const n = ++counter;
  const email = p.email ?? `person.${n}.${randomUUID().slice(0, 8)}@example.test`;
  const [row] = await db.query<{ id: string }[]>(
    `INSERT INTO users (email, username, name, locale, time_zone) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [email, `person_${n}_${randomUUID().slice(0, 8)}`, `Person ${n}`, p.locale ?? 'es', p.timeZone ?? 'UTC'],
  );
  return { id: row.id, email };
}

/** An organization (and, with `owner`, its owner's membership). */
export async function insertOrganization(
  db: DataSource,
  owner?: string,
  p: { timeZone?: string } = {},
): Promise<string> {
  const n = ++counter;
  const [row] = await db.query<{ id: string }[]>(
    `INSERT INTO organizations (name, slug, time_zone, created_by) VALUES ($1, $2, $3, $4) RETURNING id`,
    [`Organization ${n}`, `org-${n}-${randomUUID().slice(0, 8)}`, p.timeZone ?? 'UTC', owner ?? null],
  );
  if (owner) await insertMember(db, row.id, owner, 'owner');
  return row.id;
}

export async function insertMember(
  db: DataSource,
  organizationId: string,
  userId: string,
  role: 'owner' | 'admin' | 'teacher' | 'student' = 'student',
): Promise<void> {
  await db.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3)`, [
    organizationId,
    userId,
    role,
  ]);
}

/** Sets the clock to `at`; it stays there until set or advanced again. */
export function clockAt(clock: StillClock, at: string | Date): void {
  clock.set(at);
}

/**
 * Stands for a neighbouring area's service that the rule under test never reaches (a course deck's catalog when
 * the test studies personal decks): any use throws, naming it, so a test cannot pass through it by accident.
 * Providing the real one would boot that area and everything it depends on, which this layer avoids.
 */
export function outOfScope<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      // What the container and promise checks look up (a constructor, lifecycle hooks, `then`) is simply absent.
      if (
        typeof property === 'symbol' ||
        property === 'constructor' ||
        property === 'then' ||
        /^(on|before)[A-Z]/.test(property)
      )
        return undefined;
      return () => {
        throw new Error(`${name}.${property} is outside this integration test`);
      };
    },
  });
}
