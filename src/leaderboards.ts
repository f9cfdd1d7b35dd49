import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '@/app.module';
import { loadDotEnv } from '@/config/dotenv';
import { ConfigError, loadConfig } from '@/config/load-config';
import { LeaderboardsService } from '@/modules/gamification/leaderboards.service';

/**
 * `node dist/src/leaderboards.js rebuild [org_id]`: rebuilds the cached leaderboards (Redis sorted sets) from the
 * XP ledger, for one organization or every one with XP. Safe at any time: reads answer from the ledger meanwhile.
 */
async function main(): Promise<void> {
  loadDotEnv();
  const [command, organizationId] = process.argv.slice(2);
  if (command !== 'rebuild') throw new ConfigError('command', 'must be `rebuild [org_id]`');
  const config = { ...loadConfig(process.env), processJobs: false };
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: ['error', 'warn'] });
  const { organizations } = await app.get(LeaderboardsService).rebuild(organizationId);
  console.log(
    `Rebuilt the leaderboards of ${organizations} organization(s)${config.redis.url ? '' : ' (no Redis: nothing cached)'}.`,
  );
  await app.close();
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
