/* Shared names for one test run: the template database and the Redis key space. */

export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
export const TEST_DB_PREFIX = 'lp_test_';
export const TEST_REDIS_PREFIX = 'lpt';

export function runId(): string {
  const id = process.env.LP_TEST_RUN_ID;
  if (!id) throw new Error('LP_TEST_RUN_ID is not set: run the tests through jest (globalSetup)');
  return id;
}

export function templateDatabase(): string {
  return `${TEST_DB_PREFIX}${runId()}_tpl`;
}

/** A database URL on the same server as the admin URL, naming another database. */
export function databaseUrl(name: string, port?: number): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  if (port !== undefined) {
    url.hostname = '127.0.0.1';
    url.port = String(port);
  }
  return url.toString();
}
