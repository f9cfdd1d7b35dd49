import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

/** The shared Redis connection for counters and short-lived state, or null when REDIS_URL is unset. */
export const REDIS = Symbol('REDIS');

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Redis | null => {
        if (!config.redis.url) return null;
        const logger = new Logger('Redis');
        const client = new Redis(config.redis.url, {
          // Fail fast while disconnected, so callers fall back instead of hanging a request.
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 5_000,
        });
        client.on('error', (err: Error) => logger.warn({ err: err.message }, 'Redis connection error'));
        return client;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.redis && this.redis.status !== 'end') await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
