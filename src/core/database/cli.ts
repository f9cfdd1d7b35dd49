/* Migration commands for operators: `npm run migration:run` and `npm run migration:revert`. */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadDotEnv } from '@/config/dotenv';
import { loadConfig } from '@/config/load-config';
import { baseDataSourceOptions } from './data-source-options';
import { EmbeddedPostgres } from './embedded-postgres';
import { revertLastMigrationLocked, runMigrationsLocked } from './migrate';

async function main(command: string | undefined): Promise<void> {
  if (command !== 'run' && command !== 'revert' && command !== 'show') {
    throw new Error('usage: cli.js run | revert | show');
  }
  loadDotEnv();
  const config = loadConfig(process.env);
  // The migration lock is a session advisory lock: DATABASE_DIRECT_URL, never a transaction-mode pooler.
  const embedded = config.database.directUrl ? null : new EmbeddedPostgres(config.dataDir);
  const url = config.database.directUrl ?? (await embedded!.start());
  const dataSource = await new DataSource(baseDataSourceOptions(url, 2)).initialize();
  try {
    if (command === 'run') {
      const applied = await runMigrationsLocked(dataSource);
      console.log(applied.length ? `Applied: ${applied.map((m) => m.name).join(', ')}` : 'Nothing to apply.');
    } else if (command === 'revert') {
      await revertLastMigrationLocked(dataSource);
      console.log('Reverted the last migration.');
    } else {
      const pending = await dataSource.showMigrations();
      console.log(pending ? 'Migrations are pending.' : 'The schema is up to date.');
    }
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}

main(process.argv[2]).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
