/*
 * The operators' command line (docs: README, "Running it for real"):
 *   node dist/src/apps/cli.js migrate run | revert | show
 *   node dist/src/apps/cli.js leaderboards rebuild [org_id]
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { AppModule } from '@/apps/app.module';
import { loadDotEnv } from '@/config/dotenv';
import { loadConfig } from '@/config/load-config';
import { baseDataSourceOptions } from '@/core/database/data-source-options';
import { EmbeddedPostgres } from '@/core/database/embedded-postgres';
import { revertLastMigrationLocked, runMigrationsLocked } from '@/core/database/migrate';
import { LeaderboardsService } from '@/modules/practice/gamification';

const USAGE = 'usage: cli.js migrate run|revert|show | cli.js leaderboards rebuild [org_id]';

async function migrate(command: string | undefined): Promise<void> {
  if (command !== 'run' && command !== 'revert' && command !== 'show') throw new Error(USAGE);
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

/**
 * Rebuilds the cached leaderboards (Redis sorted sets) from the XP ledger, for one organization or every one with
 * XP. Safe at any time: reads answer from the ledger meanwhile.
 */
async function leaderboards(command: string | undefined, organizationId: string | undefined): Promise<void> {
  if (command !== 'rebuild') throw new Error(USAGE);
  const config = { ...loadConfig(process.env), processJobs: false };
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: ['error', 'warn'] });
  const { organizations } = await app.get(LeaderboardsService).rebuild(organizationId);
  console.log(
    `Rebuilt the leaderboards of ${organizations} organization(s)${config.redis.url ? '' : ' (no Redis: nothing cached)'}.`,
  );
  await app.close();
}

async function main([group, command, argument]: string[]): Promise<void> {
  loadDotEnv();
  if (group === 'migrate') return migrate(command);
  if (group === 'leaderboards') return leaderboards(command, argument);
  throw new Error(USAGE);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
