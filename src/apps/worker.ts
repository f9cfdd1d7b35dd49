import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '@/apps/app.module';
import { loadDotEnv } from '@/config/dotenv';
import { ConfigError, loadConfig } from '@/config/load-config';
import { AppLogger } from '@/core/logging/logger';

/** A process that runs background job processors only (no HTTP). */
async function bootstrap(): Promise<void> {
  loadDotEnv();
  const config = { ...loadConfig(process.env), processJobs: true };
  if (!config.redis.url) throw new ConfigError('REDIS_URL', 'is required for a separate worker process');
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { bufferLogs: true });
  app.useLogger(app.get(AppLogger));
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  app.get(AppLogger).log('Worker started: processing background jobs');
}

bootstrap().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
