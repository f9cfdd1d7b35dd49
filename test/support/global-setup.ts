import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { runMigrationsLocked } from '../../src/core/database/migrate';
import { ADMIN_DATABASE_URL, databaseUrl, TEST_DB_PREFIX } from './test-env';

const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/** Creates and migrates this run's template database; every e2e file copies it (CREATE DATABASE ... TEMPLATE). */
export default async function globalSetup(): Promise<void> {
  const id = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  process.env.LP_TEST_RUN_ID = id;
  const template = `${TEST_DB_PREFIX}${id}_tpl`;

  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await dropStaleDatabases(admin);
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  const dataSource = new DataSource({
    type: 'postgres',
    url: databaseUrl(template),
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
  });
  await dataSource.initialize();
  try {
    await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/** Databases left by runs that crashed long ago (their names start with a base-36 timestamp). */
async function dropStaleDatabases(admin: Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
    `${TEST_DB_PREFIX}%`,
  ]);
  for (const { datname } of rows) {
    const stamp = /^lp_test_([0-9a-z]+?)[0-9a-f]{6}_/.exec(datname)?.[1];
    if (stamp && Date.now() - parseInt(stamp, 36) > STALE_AFTER_MS) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  }
}
