import type { DataSource, Migration } from 'typeorm';

/** Key of the advisory lock that serializes migrations across instances (any constant bigint works). */
const MIGRATION_LOCK_KEY = 7_246_031_958_123_001n;

/**
 * Runs pending migrations while holding a PostgreSQL session advisory lock, so two instances starting at once
 * never migrate together: the second waits, then finds nothing left to do. Each migration runs in its own
 * transaction.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      return await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
    }
  } finally {
    await runner.release();
  }
}

export async function revertLastMigrationLocked(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      await dataSource.undoLastMigration({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
    }
  } finally {
    await runner.release();
  }
}
