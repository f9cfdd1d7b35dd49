import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '@/apps/app.module';
import { loadDotEnv } from '@/config/dotenv';
import { ConfigError, loadConfig } from '@/config/load-config';
import { prepareApp } from '@/apps/configure-app';
import { installGracefulShutdown } from '@/core/http/shutdown';
import { AppLogger } from '@/core/logging/logger';

async function bootstrap(): Promise<void> {
  loadDotEnv();
  const config = loadConfig(process.env);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
  await prepareApp(app, config);
  // SIGTERM drains first (a rolling restart, 5.2); SIGINT (a developer's Ctrl-C) stops at once.
  app.enableShutdownHooks(['SIGINT']);
  await app.listen(config.port);
  installGracefulShutdown(app, config);
  app.get(AppLogger).log(`Listening on ${config.baseUrl} (docs at ${config.baseUrl}/docs)`);
}

bootstrap().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error('Start failed:', err instanceof Error ? (err.stack ?? err.message) : err);
  }
  process.exit(1);
});
