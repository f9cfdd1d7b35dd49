import Redis from 'ioredis';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, TEST_DB_PREFIX, TEST_REDIS_PREFIX, TEST_REDIS_URL } from './test-env';

/** Drops every database and Redis key of this run. */
export default async function globalTeardown(): Promise<void> {
  const id = process.env.LP_TEST_RUN_ID;
  if (!id) return;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
      `${TEST_DB_PREFIX}${id}_%`,
    ]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${TEST_REDIS_PREFIX}:${id}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } catch {
    // Redis-less runs have nothing to clean.
  } finally {
    redis.disconnect();
  }
}
