import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';

type ScriptArg = string | number | Buffer;

/**
 * A Lua script sent by its SHA1 (`EVALSHA`), its text only once per connection: ioredis' own `defineCommand`, which
 * falls back to `EVAL` when Redis does not know the script (a restart, `SCRIPT FLUSH`). `EVAL` with the text on
 * every call made Redis receive and hash the whole script per request.
 */
export class RedisScript {
  private readonly command: string;

  constructor(
    name: string,
    private readonly numberOfKeys: number,
    private readonly lua: string,
  ) {
    // One command name per script text: two scripts can never shadow each other on a shared connection.
    this.command = `lp_${name}_${createHash('sha1').update(lua).digest('hex').slice(0, 8)}`;
  }

  /** Runs the script on `redis` (keys first, then arguments, as `EVAL` takes them). */
  run(redis: Redis, ...keysAndArgs: ScriptArg[]): Promise<unknown> {
    return (this.prepare(redis) as unknown as Record<string, (...a: ScriptArg[]) => Promise<unknown>>)[this.command](
      ...keysAndArgs,
    );
  }

  /**
   * Queues the script in a pipeline; its connection must have been `prepare`d before the pipeline was made (a
   * pipeline carries the scripts its connection knew then).
   */
  queue(pipeline: ChainableCommander, ...keysAndArgs: ScriptArg[]): void {
    (pipeline as unknown as Record<string, (...a: ScriptArg[]) => unknown>)[this.command](...keysAndArgs);
  }

  /** Makes the script known to this connection (once). */
  prepare(redis: Redis): Redis {
    if (!(this.command in redis)) redis.defineCommand(this.command, { numberOfKeys: this.numberOfKeys, lua: this.lua });
    return redis;
  }
}
