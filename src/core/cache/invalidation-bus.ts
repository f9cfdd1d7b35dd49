import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { REDIS } from '@/core/redis/redis.module';

type Handler = (key: string) => void;

/**
 * Tells every instance that a cached value changed. With Redis: pub/sub on one channel; `reliable` is true only
 * while subscribed, so caches stop serving (and are flushed) whenever an invalidation could be missed. Without
 * Redis there is one process, and local invalidation is the whole story.
 */
@Injectable()
export class InvalidationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('InvalidationBus');
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly resetHandlers = new Set<() => void>();
  private subscriber: Redis | null = null;
  private subscribed = false;
  private readonly channel: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = `${config.redis.keyPrefix}:invalidate`;
  }

  onModuleInit(): void {
    if (!this.redis) return;
    const sub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber = sub;
    sub.on('ready', () => {
      sub
        .subscribe(this.channel)
        .then(() => {
          // Messages may have been missed while disconnected: start from an empty cache.
          for (const reset of this.resetHandlers) reset();
          this.subscribed = true;
        })
        .catch((err: unknown) => this.logger.warn({ err }, 'Subscribe failed'));
    });
    sub.on('close', () => (this.subscribed = false));
    sub.on('end', () => (this.subscribed = false));
    sub.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'Invalidation channel error'));
    sub.on('message', (_channel: string, message: string) => {
      const sep = message.indexOf('|');
      if (sep < 0) return;
      for (const handler of this.handlers.get(message.slice(0, sep)) ?? []) handler(message.slice(sep + 1));
    });
  }

  /** Whether cached values can be trusted: no Redis (single process), or subscribed to the channel. */
  get reliable(): boolean {
    return this.redis === null || this.subscribed;
  }

  on(topic: string, handler: Handler, onReset: () => void): void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    this.resetHandlers.add(onReset);
  }

  /** Invalidates here at once and tells the other instances. */
  async publish(topic: string, key: string): Promise<void> {
    for (const handler of this.handlers.get(topic) ?? []) handler(key);
    if (!this.redis) return;
    try {
      await this.redis.publish(this.channel, `${topic}|${key}`);
    } catch (err) {
      this.logger.warn({ err }, 'Could not broadcast an invalidation');
    }
  }

  /** `publish` for many keys of a topic: one pipeline of messages to the other instances. */
  async publishMany(topic: string, keys: readonly string[]): Promise<void> {
    for (const handler of this.handlers.get(topic) ?? []) for (const key of keys) handler(key);
    if (!this.redis || keys.length === 0) return;
    try {
      const pipeline = this.redis.pipeline();
      for (const key of keys) pipeline.publish(this.channel, `${topic}|${key}`);
      const failed = ((await pipeline.exec()) ?? []).find(([err]) => err)?.[0];
      if (failed) this.logger.warn({ err: failed }, 'Could not broadcast an invalidation');
    } catch (err) {
      this.logger.warn({ err }, 'Could not broadcast an invalidation');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscribed = false;
    if (this.subscriber) await this.subscriber.quit().catch(() => this.subscriber?.disconnect());
  }
}
