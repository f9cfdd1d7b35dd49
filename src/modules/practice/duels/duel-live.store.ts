import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { REDIS } from '@/core/redis/redis.module';
import { QUEUE_TIMEOUT_MS } from './duel-rules';

export type JoinOutcome = { kind: 'already' } | { kind: 'queued' } | { kind: 'paired'; first: string; second: string };

/** A queue entry's owner: the socket that joined (a person leaves when that socket drops). */
const marker = (queue: string, socketId: string): string => `${queue}|${socketId}`;

const JOIN = `
if redis.call('SET', KEYS[2], ARGV[3], 'NX', 'PX', ARGV[4]) == false then return {'already'} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= 2 then
  local popped = redis.call('ZPOPMIN', KEYS[1], 2)
  redis.call('DEL', ARGV[5] .. popped[1], ARGV[5] .. popped[3])
  return {'paired', popped[1], popped[3]}
end
return {'queued'}`;

const LEAVE = `
local owner = redis.call('GET', KEYS[1])
if owner == false then return 0 end
if ARGV[2] ~= '' and owner ~= ARGV[2] then return 0 end
local queue = string.match(owner, '^(.*)|')
redis.call('DEL', KEYS[1])
redis.call('ZREM', ARGV[3] .. queue, ARGV[1])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/**
 * The shared state of duels (8.3): the matchmaking queues (one per organization and course, the two oldest
 * paired atomically, a person queued once across instances), the `duel:ready` marks, the driver lease and the
 * state snapshot of a live duel. In Redis when configured; in this process's memory only in embedded mode (one
 * process, no Redis).
 */
@Injectable()
export class DuelLiveStore {
  private readonly prefix: string;
  // Embedded mode only.
  private readonly queues = new Map<string, { userId: string; at: number }[]>();
  private readonly markers = new Map<string, string>();
  private readonly readies = new Map<string, Set<string>>();
  private readonly leases = new Map<string, string>();
  private readonly snapshots = new Map<string, string>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {
    this.prefix = `${config.redis.keyPrefix}:duels:`;
  }

  get shared(): boolean {
    return this.redis !== null;
  }

  static queueKey(organizationId: string, courseId: string | null): string {
    return `q:${organizationId}:${courseId ?? 'any'}`;
  }

  async join(queue: string, userId: string, socketId: string, nowMs: number): Promise<JoinOutcome> {
    if (this.redis) {
      const res = (await this.redis.eval(
        JOIN,
        2,
        this.prefix + queue,
        this.prefix + 'mm:user:' + userId,
        userId,
        String(nowMs),
        marker(queue, socketId),
        String(QUEUE_TIMEOUT_MS * 2),
        this.prefix + 'mm:user:',
      )) as string[];
      return res[0] === 'paired'
        ? { kind: 'paired', first: res[1], second: res[2] }
        : { kind: res[0] as 'queued' | 'already' };
    }
    if (this.markers.has(userId)) return { kind: 'already' };
    this.markers.set(userId, marker(queue, socketId));
    const list = this.queues.get(queue) ?? [];
    list.push({ userId, at: nowMs });
    this.queues.set(queue, list);
    if (list.length >= 2) {
      const [a, b] = list.splice(0, 2);
      this.markers.delete(a.userId);
      this.markers.delete(b.userId);
      return { kind: 'paired', first: a.userId, second: b.userId };
    }
    return { kind: 'queued' };
  }

  /** Whether the person is in a matchmaking queue (one key read: checked before any other work, 6.4). */
  async isQueued(userId: string): Promise<boolean> {
    if (this.redis) return (await this.redis.exists(this.prefix + 'mm:user:' + userId)) === 1;
    return this.markers.has(userId);
  }

  /** Leaves the queue (only the entry of `socketId` when given); whether the person was queued. */
  async leave(userId: string, socketId?: string): Promise<boolean> {
    if (this.redis) {
      const owner = socketId ? await this.redis.get(this.prefix + 'mm:user:' + userId) : null;
      const expected = socketId && owner ? (owner.endsWith(`|${socketId}`) ? owner : '\u0000') : '';
      const n = (await this.redis.eval(
        LEAVE,
        1,
        this.prefix + 'mm:user:' + userId,
        userId,
        expected,
        this.prefix,
      )) as number;
      return n === 1;
    }
    const owner = this.markers.get(userId);
    if (!owner || (socketId && !owner.endsWith(`|${socketId}`))) return false;
    this.markers.delete(userId);
    const queue = owner.slice(0, owner.lastIndexOf('|'));
    const list = this.queues.get(queue) ?? [];
    this.queues.set(
      queue,
      list.filter((e) => e.userId !== userId),
    );
    return true;
  }

  /** Marks a player ready; the number of players ready. */
  async markReady(duelId: string, userId: string): Promise<number> {
    if (this.redis) {
      const key = this.prefix + duelId + ':ready';
      const res = await this.redis
        .multi()
        .sadd(key, userId)
        .pexpire(key, 10 * 60_000)
        .scard(key)
        .exec();
      return Number(res?.[2]?.[1] ?? 0);
    }
    const set = this.readies.get(duelId) ?? new Set<string>();
    set.add(userId);
    this.readies.set(duelId, set);
    return set.size;
  }

  /** Takes the lease of driving a duel (SET NX PX 10000); true when this instance holds it. */
  async acquireLease(duelId: string, instanceId: string): Promise<boolean> {
    if (this.redis) {
      return (await this.redis.set(this.prefix + duelId + ':driver', instanceId, 'PX', 10_000, 'NX')) === 'OK';
    }
    if (this.leases.has(duelId)) return false;
    this.leases.set(duelId, instanceId);
    return true;
  }

  /** Whether anyone holds the lease of a duel (a driver alive within the last 10 s). */
  async leaseHeld(duelId: string): Promise<boolean> {
    if (this.redis) return (await this.redis.exists(this.prefix + duelId + ':driver')) === 1;
    return this.leases.has(duelId);
  }

  /** Gives the lease up (a driver shutting down), when this instance holds it. */
  async releaseLease(duelId: string, instanceId: string): Promise<void> {
    if (this.redis) await this.redis.eval(RELEASE, 1, this.prefix + duelId + ':driver', instanceId);
    else if (this.leases.get(duelId) === instanceId) this.leases.delete(duelId);
  }

  async loadState<T>(duelId: string): Promise<T | null> {
    const raw = this.redis ? await this.redis.get(this.prefix + duelId) : (this.snapshots.get(duelId) ?? null);
    return raw ? (JSON.parse(raw) as T) : null;
  }

  async renewLease(duelId: string, instanceId: string): Promise<void> {
    if (this.redis) await this.redis.eval(RENEW, 1, this.prefix + duelId + ':driver', instanceId, '10000');
  }

  async saveState(duelId: string, state: unknown): Promise<void> {
    if (this.redis) await this.redis.set(this.prefix + duelId, JSON.stringify(state), 'PX', 3600_000);
    else this.snapshots.set(duelId, JSON.stringify(state));
  }

  /** Forgets a duel that ended: its state, ready marks and lease. */
  async forget(duelId: string): Promise<void> {
    if (this.redis) {
      await this.redis.del(this.prefix + duelId, this.prefix + duelId + ':ready', this.prefix + duelId + ':driver');
      return;
    }
    this.snapshots.delete(duelId);
    this.readies.delete(duelId);
    this.leases.delete(duelId);
  }
}
