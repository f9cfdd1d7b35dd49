import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { REDIS } from '@/core/redis/redis.module';
import { RedisScript } from '@/core/redis/redis-script';
import { isoWeekKey, monthKey } from '@/core/time/local-time';
import type { LedgerRow } from './ledger.repository';
import { orgEq } from '@/core/database/tenancy';

/** One leaderboard: an organization's period (`2026-W48`, `2026-11` or `all`) with its bounds. */
export interface BoardWindow {
  organizationId: string;
  key: string;
  start: Date | null;
  end: Date | null;
}

export interface BoardEntry {
  userId: string;
  xp: number;
  rank: number;
}

/**
 * The leaderboard of extensions-v2 3.3: members with more than 0 XP in the period, `rank = 1 + members with
 * strictly more XP`, equal XP sharing the rank and ordered by `user_id`. PostgreSQL (the ledger) is the truth;
 * with Redis, sorted sets cache each period and are rebuildable from it.
 */
export abstract class LeaderboardStore {
  /** The ledger wrote these rows (called after their commit). */
  abstract record(rows: readonly LedgerRow[], organizationZones: ReadonlyMap<string, string>): Promise<void>;
  abstract page(w: BoardWindow, limit: number, offset: number): Promise<{ items: BoardEntry[]; total: number }>;
  abstract standing(w: BoardWindow, userId: string): Promise<{ rank: number | null; xp: number }>;
  /** The member's 0-based position in the ordering (XP descending, then `user_id`), or null with 0 XP. */
  abstract position(w: BoardWindow, userId: string): Promise<number | null>;
  /** Builds the cached period from the ledger (nothing to do without a cache). */
  abstract rebuild(w: BoardWindow): Promise<void>;
  /** Forgets what is cached for an organization (a member left; a rebuild). */
  abstract invalidate(organizationId: string): Promise<void>;

  /**
   * A page, the member's standing and (with `around`) the entries up to `around` places either side of them:
   * what one leaderboard request needs.
   */
  async read(w: BoardWindow, userId: string, limit: number, offset: number, around: number | null): Promise<BoardRead> {
    const [page, me] = await Promise.all([this.page(w, limit, offset), this.standing(w, userId)]);
    let near: BoardEntry[] | null = null;
    if (around !== null) {
      const pos = around > 0 ? await this.position(w, userId) : null;
      near = pos === null ? [] : (await this.page(w, 2 * around + 1, Math.max(0, pos - around))).items;
    }
    return { ...page, me, around: near };
  }
}

export interface BoardRead {
  items: BoardEntry[];
  total: number;
  me: { rank: number | null; xp: number };
  around: BoardEntry[] | null;
}

/** Ranks of a slice of the ordering starting at `offset` whose first entry has rank `firstRank`. */
function ranked(flat: readonly string[], offset: number, firstRank: number): BoardEntry[] {
  const out: BoardEntry[] = [];
  let rank = firstRank;
  let prev: number | null = null;
  for (let i = 0; i < flat.length; i += 2) {
    const score = Number(flat[i + 1]);
    if (prev !== null && score !== prev) rank = offset + i / 2 + 1;
    prev = score;
    out.push({ userId: flat[i], xp: -score, rank });
  }
  return out;
}

/** The answers of the ledger itself (and the only store in embedded mode, without Redis). */
@Injectable()
export class LedgerBoards {
  constructor(private readonly dataSource: DataSource) {}

  /** `(user_id, xp)` of the period, `cohortId` restricting to that cohort's people. */
  private source(w: BoardWindow, cohortId: string | null): { sql: string; params: unknown[] } {
    const params: unknown[] = [w.organizationId];
    const cohort = cohortId
      ? `AND user_id IN (SELECT user_id FROM cohort_members_read WHERE ${orgEq(1)} AND cohort_id = $${params.push(cohortId)})`
      : '';
    if (w.start === null)
      return {
        sql: `SELECT user_id, xp::int AS xp FROM xp_totals WHERE ${orgEq(1)} AND xp > 0 ${cohort}`,
        params,
      };
    const start = `$${params.push(w.start)}`;
    const end = w.end ? `AND created_at < $${params.push(w.end)}` : '';
    return {
      sql: `SELECT user_id, sum(amount)::int AS xp FROM xp_ledger WHERE ${orgEq(1)} AND created_at >= ${start} ${end} ${cohort}
            GROUP BY user_id`,
      params,
    };
  }

  async page(
    w: BoardWindow,
    limit: number,
    offset: number,
    cohortId: string | null = null,
  ): Promise<{ items: BoardEntry[]; total: number }> {
    const { sql, params } = this.source(w, cohortId);
    const rows = await this.dataSource.query<{ user_id: string; xp: number; rank: number; total: number }[]>(
      `SELECT user_id, xp, (rank() OVER (ORDER BY xp DESC))::int AS rank, (count(*) OVER ())::int AS total
       FROM (${sql}) s ORDER BY xp DESC, user_id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
    let total = rows[0]?.total;
    if (total === undefined) {
      const c = await this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM (${sql}) s`, params);
      total = c[0].n;
    }
    return { items: rows.map((r) => ({ userId: r.user_id, xp: r.xp, rank: r.rank })), total };
  }

  async standing(
    w: BoardWindow,
    userId: string,
    cohortId: string | null = null,
  ): Promise<{ rank: number | null; xp: number }> {
    const { sql, params } = this.source(w, cohortId);
    const rows = await this.dataSource.query<{ xp: number | null; above: number }[]>(
      `WITH s AS (${sql})
       SELECT (SELECT xp FROM s WHERE user_id = $${params.length + 1}) AS xp,
         (SELECT count(*) FROM s WHERE xp > (SELECT xp FROM s WHERE user_id = $${params.length + 1}))::int AS above`,
      [...params, userId],
    );
    const xp = rows[0]?.xp ?? 0;
    return xp > 0 ? { rank: rows[0].above + 1, xp } : { rank: null, xp: 0 };
  }

  async position(w: BoardWindow, userId: string, cohortId: string | null = null): Promise<number | null> {
    const { sql, params } = this.source(w, cohortId);
    const n = params.length + 1;
    const rows = await this.dataSource.query<{ pos: number | null }[]>(
      `WITH s AS (${sql}), me AS (SELECT xp FROM s WHERE user_id = $${n})
       SELECT CASE WHEN (SELECT xp FROM me) IS NULL THEN NULL ELSE
         (SELECT count(*) FROM s WHERE s.xp > (SELECT xp FROM me) OR (s.xp = (SELECT xp FROM me) AND s.user_id < $${n}))::int
       END AS pos`,
      [...params, userId],
    );
    return rows[0]?.pos ?? null;
  }

  /** Every `(user_id, xp)` of the period, for a cache rebuild. */
  async all(w: BoardWindow): Promise<{ user_id: string; xp: number }[]> {
    const { sql, params } = this.source(w, null);
    return this.dataSource.query(sql, params);
  }
}

/** Embedded mode: the ledger answers directly. */
@Injectable()
export class PostgresLeaderboardStore extends LeaderboardStore {
  constructor(private readonly boards: LedgerBoards) {
    super();
  }

  async record(): Promise<void> {
    /* the ledger is the store */
  }

  page(w: BoardWindow, limit: number, offset: number): Promise<{ items: BoardEntry[]; total: number }> {
    return this.boards.page(w, limit, offset);
  }

  standing(w: BoardWindow, userId: string): Promise<{ rank: number | null; xp: number }> {
    return this.boards.standing(w, userId);
  }

  position(w: BoardWindow, userId: string): Promise<number | null> {
    return this.boards.position(w, userId);
  }

  async rebuild(): Promise<void> {
    /* the ledger is the store */
  }

  async invalidate(): Promise<void> {
    /* nothing cached */
  }
}

/** Cached periods of past weeks and months live this long after their last rebuild. */
const PAST_TTL_S = 35 * 86_400;
const CHUNK = 5_000;

/**
 * Redis sorted sets, one per organization and period, holding `-xp` so that an ascending range orders by XP
 * descending and equal XP by member (`user_id`) ascending, as 3.3 says. A set is usable when its `:ready` marker
 * exists; increments only apply to ready sets (a Lua script checks), and a missing set is rebuilt from the ledger
 * on first read. Any Redis failure falls back to the ledger.
 */
@Injectable()
export class RedisLeaderboardStore extends LeaderboardStore {
  private readonly logger = new Logger('Leaderboard');
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly boards: LedgerBoards,
    private readonly clock: Clock,
  ) {
    super();
    this.prefix = `${config.redis.keyPrefix}:lb`;
  }

  key(organizationId: string, period: string): string {
    return `${this.prefix}:${organizationId}:${period}`;
  }

  private keysOf(organizationId: string): string {
    return `${this.prefix}:${organizationId}:keys`;
  }

  async record(rows: readonly LedgerRow[], zones: ReadonlyMap<string, string>): Promise<void> {
    const incr = new Map<string, Map<string, number>>();
    const add = (key: string, userId: string, xp: number): void => {
      const m = incr.get(key) ?? new Map<string, number>();
      m.set(userId, (m.get(userId) ?? 0) + xp);
      incr.set(key, m);
    };
    for (const r of rows) {
      const zone = zones.get(r.organization_id) ?? 'UTC';
      const at = new Date(r.created_at);
      add(this.key(r.organization_id, isoWeekKey(at, zone)), r.user_id, r.amount);
      add(this.key(r.organization_id, monthKey(at, zone)), r.user_id, r.amount);
      add(this.key(r.organization_id, 'all'), r.user_id, r.amount);
    }
    try {
      INCR_IF_READY_SCRIPT.prepare(this.redis);
      const pipeline = this.redis.pipeline();
      for (const [key, members] of incr) {
        const args: (string | number)[] = [];
        for (const [userId, xp] of members) args.push(-xp, userId);
        INCR_IF_READY_SCRIPT.queue(pipeline, key, `${key}:ready`, ...args);
      }
      await pipeline.exec();
    } catch (err) {
      // The sets may now be behind the ledger: drop them, the next read rebuilds.
      this.logger.warn({ err }, 'Leaderboard increment failed; dropping the cached periods');
      await Promise.all(
        [...new Set(rows.map((r) => r.organization_id))].map((o) => this.invalidate(o).catch(() => undefined)),
      );
    }
  }

  /** Builds the set of a period from the ledger (replacing any), and marks it ready. */
  async rebuild(w: BoardWindow): Promise<void> {
    const key = this.key(w.organizationId, w.key);
    const tmp = `${key}:build:${process.pid}:${Date.now()}`;
    const rows = await this.boards.all(w);
    for (let i = 0; i < rows.length; i += CHUNK) {
      const args: (string | number)[] = [];
      for (const r of rows.slice(i, i + CHUNK)) args.push(-r.xp, r.user_id);
      await this.redis.zadd(tmp, ...args);
    }
    const multi = this.redis.multi();
    if (rows.length > 0) multi.rename(tmp, key);
    else multi.del(key);
    multi.set(`${key}:ready`, '1');
    multi.sadd(this.keysOf(w.organizationId), key);
    if (w.end !== null && w.end.getTime() <= this.clock.nowMs()) {
      multi.expire(key, PAST_TTL_S);
      multi.expire(`${key}:ready`, PAST_TTL_S);
    }
    await multi.exec();
  }

  private async ready(w: BoardWindow): Promise<string> {
    const key = this.key(w.organizationId, w.key);
    if (!(await this.redis.exists(`${key}:ready`))) await this.rebuild(w);
    return key;
  }

  async page(w: BoardWindow, limit: number, offset: number): Promise<{ items: BoardEntry[]; total: number }> {
    try {
      const key = await this.ready(w);
      const [range, total] = await Promise.all([
        this.redis.zrange(key, offset, offset + limit - 1, 'WITHSCORES'),
        this.redis.zcard(key),
      ]);
      const items: BoardEntry[] = [];
      let rank = 0;
      let prev: number | null = null;
      for (let i = 0; i < range.length; i += 2) {
        const score = Number(range[i + 1]);
        if (prev === null) rank = (await this.redis.zcount(key, '-inf', `(${score}`)) + 1;
        else if (score !== prev) rank = offset + i / 2 + 1;
        prev = score;
        items.push({ userId: range[i], xp: -score, rank });
      }
      return { items, total };
    } catch (err) {
      this.logger.warn({ err }, 'Leaderboard read from Redis failed; answering from the ledger');
      return this.boards.page(w, limit, offset);
    }
  }

  async standing(w: BoardWindow, userId: string): Promise<{ rank: number | null; xp: number }> {
    try {
      const key = await this.ready(w);
      const score = await this.redis.zscore(key, userId);
      if (score === null || Number(score) >= 0) return { rank: null, xp: 0 };
      const above = await this.redis.zcount(key, '-inf', `(${score}`);
      return { rank: above + 1, xp: -Number(score) };
    } catch (err) {
      this.logger.warn({ err }, 'Leaderboard read from Redis failed; answering from the ledger');
      return this.boards.standing(w, userId);
    }
  }

  async position(w: BoardWindow, userId: string): Promise<number | null> {
    try {
      const key = await this.ready(w);
      return await this.redis.zrank(key, userId);
    } catch (err) {
      this.logger.warn({ err }, 'Leaderboard read from Redis failed; answering from the ledger');
      return this.boards.position(w, userId);
    }
  }

  /** One round trip: the page, the member's standing and neighbours, by a Lua script (null: set not built). */
  private async readOnce(
    key: string,
    userId: string,
    limit: number,
    offset: number,
    around: number | null,
  ): Promise<BoardRead | null> {
    const r = (await READ_SCRIPT.run(this.redis, key, `${key}:ready`, offset, limit, userId, around ?? -1)) as
      [number, string[], number, string, number, string[], number, number] | null;
    if (!r) return null;
    const [total, page, firstRank, myScore, myAbove, near, nearFirst, nearOffset] = r;
    const xp = myScore === '' ? 0 : -Number(myScore);
    return {
      items: ranked(page, offset, firstRank),
      total,
      me: xp > 0 ? { rank: myAbove + 1, xp } : { rank: null, xp: 0 },
      around: around === null ? null : around === 0 || xp <= 0 ? [] : ranked(near, nearOffset, nearFirst),
    };
  }

  override async read(
    w: BoardWindow,
    userId: string,
    limit: number,
    offset: number,
    around: number | null,
  ): Promise<BoardRead> {
    try {
      const key = this.key(w.organizationId, w.key);
      const first = await this.readOnce(key, userId, limit, offset, around);
      if (first) return first;
      await this.rebuild(w);
      const second = await this.readOnce(key, userId, limit, offset, around);
      if (second) return second;
    } catch (err) {
      this.logger.warn({ err }, 'Leaderboard read from Redis failed; answering from the ledger');
    }
    const ledger = new PostgresLeaderboardStore(this.boards);
    return ledger.read(w, userId, limit, offset, around);
  }

  async invalidate(organizationId: string): Promise<void> {
    const keys = await this.redis.smembers(this.keysOf(organizationId));
    if (keys.length > 0) await this.redis.del(...keys.flatMap((k) => [k, `${k}:ready`]));
    await this.redis.del(this.keysOf(organizationId));
  }
}

/**
 * KEYS[1] the set, KEYS[2] its ready marker; ARGV offset, limit, member, around (-1: none). Answers nil when the
 * set is not built, else {total, page (member, score, ...), rank of the page's first entry, the member's score
 * ('' without XP), members strictly above them, the neighbours, rank of the first neighbour, their offset}.
 */
const READ = `
if redis.call('EXISTS', KEYS[2]) == 0 then return nil end
local key = KEYS[1]
local offset = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local member = ARGV[3]
local around = tonumber(ARGV[4])
local total = redis.call('ZCARD', key)
local page = redis.call('ZRANGE', key, offset, offset + limit - 1, 'WITHSCORES')
local firstRank = 0
if #page > 0 then firstRank = redis.call('ZCOUNT', key, '-inf', '(' .. page[2]) + 1 end
local score = redis.call('ZSCORE', key, member)
local above = 0
local near = {}
local nearFirst = 0
local nearOffset = 0
if score then
  above = redis.call('ZCOUNT', key, '-inf', '(' .. score)
  if around > 0 then
    local pos = redis.call('ZRANK', key, member)
    nearOffset = math.max(0, pos - around)
    near = redis.call('ZRANGE', key, nearOffset, pos + around, 'WITHSCORES')
    if #near > 0 then nearFirst = redis.call('ZCOUNT', key, '-inf', '(' .. near[2]) + 1 end
  end
else
  score = ''
end
return {total, page, firstRank, score, above, near, nearFirst, nearOffset}`;

/** ZINCRBY each (increment, member) pair of ARGV into KEYS[1] only when KEYS[2] (the ready marker) exists. */
const INCR_IF_READY = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
for i = 1, #ARGV, 2 do redis.call('ZINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1`;

const READ_SCRIPT = new RedisScript('lb_read', 2, READ);
const INCR_IF_READY_SCRIPT = new RedisScript('lb_incr', 2, INCR_IF_READY);
