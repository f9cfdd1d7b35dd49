import Redis from 'ioredis';
import { RedisScript } from './redis-script';

const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('RedisScript', () => {
  let redis: Redis;
  const key = `lptest:script:${process.pid}:${Date.now()}`;

  beforeAll(() => {
    redis = new Redis(url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await redis.del(key);
    await redis.quit();
  });

  // (The fallback to EVAL on NOSCRIPT is ioredis' own; flushing the scripts of a Redis other suites share is not ours to do.)
  it('runs the script, again by its SHA, and queues it in a pipeline', async () => {
    const incr = new RedisScript('t_incr', 1, `return redis.call('INCRBY', KEYS[1], ARGV[1])`);
    expect(await incr.run(redis, key, 2)).toBe(2);
    expect(await incr.run(redis, key, 3)).toBe(5);
    incr.prepare(redis);
    const pipeline = redis.pipeline();
    incr.queue(pipeline, key, 4);
    incr.queue(pipeline, key, 1);
    expect(await pipeline.exec()).toEqual([
      [null, 9],
      [null, 10],
    ]);
  });

  it('keeps two scripts of one name apart (the command is named by the text too)', async () => {
    const a = new RedisScript('same', 0, `return 'a'`);
    const b = new RedisScript('same', 0, `return 'b'`);
    expect([await a.run(redis), await b.run(redis)]).toEqual(['a', 'b']);
  });
});
