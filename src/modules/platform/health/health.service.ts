import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { FileStore } from '@/core/files/file-store';
import { QUEUE_DRIVER, type QueueDriver } from '@/core/queue/drivers/queue-driver';
import { REDIS } from '@/core/redis/redis.module';

const CHECK_TIMEOUT_MS = 1_500;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export interface Readiness {
  database: boolean;
  queue: boolean;
  cache: boolean;
  /** The file store (a HEAD on the bucket, or the folder writable). */
  storage: boolean;
}

@Injectable()
export class HealthService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(QUEUE_DRIVER) private readonly queue: QueueDriver,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly files: FileStore,
  ) {}

  /** Asks each backend, in parallel and with a short timeout. */
  async readiness(): Promise<Readiness> {
    const [database, queue, cache, storage] = await Promise.all([
      within(this.dataSource.query('SELECT 1'), CHECK_TIMEOUT_MS).then(
        () => true,
        () => false,
      ),
      within(this.queue.healthy(), CHECK_TIMEOUT_MS).catch(() => false),
      this.redis
        ? within(this.redis.ping(), CHECK_TIMEOUT_MS).then(
            (pong) => pong === 'PONG',
            () => false,
          )
        : Promise.resolve(true),
      within(this.files.healthy(), CHECK_TIMEOUT_MS).catch(() => false),
    ]);
    return { database, queue, cache, storage };
  }
}
