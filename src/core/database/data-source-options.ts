import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '@migrations';

/** Options shared by the application, the migration CLI and the tests. Entities are added by the caller. */
export function baseDataSourceOptions(url: string, poolSize: number): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    extra: {
      max: poolSize,
      // A query that hangs must not hold a request forever.
      statement_timeout: 30_000,
      idle_in_transaction_session_timeout: 60_000,
      connectionTimeoutMillis: 10_000,
      application_name: 'learning-platform',
    },
  };
}
