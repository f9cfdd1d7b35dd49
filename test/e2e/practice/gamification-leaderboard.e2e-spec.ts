import { CohortsService } from '@/modules/tenancy/cohorts';
import {
  LeaderboardStore,
  LedgerBoards,
  PostgresLeaderboardStore,
  RedisLeaderboardStore,
} from '@/modules/practice/gamification/testing';
import { LeaderboardsService } from '@/modules/practice/gamification';
import { REDIS } from '@/core/redis/redis.module';
import type Redis from 'ioredis';
import type { SignedIn } from '../../support/auth';
import { lessonCompleted, publish, quietMember, settle } from '../../support/engagement';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Entry {
  rank: number;
  xp: number;
  is_me: boolean;
  person: { user_id: string | null; anonymous: boolean; username: string | null };
}

/** Gives `userId` `lessons` lessons (10 XP each) in `org`, now by the Clock. */
async function lessons(t: TestApp, org: string, userId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await publish(t, 'lesson.completed', lessonCompleted(userId), org, { occurredAt: t.clock.now(), settle: false });
}

/**
 * The leaderboard (extensions-v2 3.3): ranks with ties, persons per 2.2, periods in the organization's zone and
 * past keys, cohorts, the caller's standing and neighbours; Redis sorted sets give the ledger's answer and are
 * rebuilt from it; without Redis the ledger answers alone.
 */
describe('gamification: leaderboard', () => {
  let t: TestApp;
  let owner: SignedIn;
  let teacher: SignedIn;
  let inCohort: SignedIn;
  let outside: SignedIn;
  let org: string;
  let orgB: string;
  let cohort: string;
  let cohortB: string;
  const ids: Record<string, string> = {};

  const setClock = (iso: string | Date): void => t.clock.advance(new Date(iso).getTime() - t.clock.nowMs());
  const board = async (s: SignedIn, query = '', status = 200) =>
    (await s.agent.get(`/api/v1/organizations/${org}/leaderboard${query}`).expect(status)).body;

  beforeAll(async () => {
    // Wednesday 2026-11-25 12:00 UTC.
    t = await createTestApp({ clockOffsetMs: Date.parse('2026-11-25T12:00:00Z') - Date.now() });
    owner = await adult(t);
    org = await createOrganization(t, owner);
    orgB = await createOrganization(t, await adult(t), 'Other');
    teacher = await adult(t);
    inCohort = await adult(t);
    outside = await adult(t);
    await addMember(t, org, teacher.user.id, 'teacher');
    await addMember(t, org, inCohort.user.id, 'student');
    await addMember(t, org, outside.user.id, 'student');
    cohort = (await t.app.get(CohortsService).create(org, { name: 'C1' }, owner.user.id)).id;
    cohortB = (await t.app.get(CohortsService).create(orgB, { name: 'CB' }, owner.user.id)).id;
    await t.app.get(CohortsService).addMember(org, cohort, teacher.user.id, 'teacher');
    await t.app.get(CohortsService).addMember(org, cohort, inCohort.user.id, 'student');
    // Two public people tied at 30, one hidden at 20, the cohort student at 10, a public minor at 20.
    ids.a = await quietMember(t, org, 'student', { publicProfile: true });
    ids.b = await quietMember(t, org, 'student', { publicProfile: true });
    ids.c = await quietMember(t, org, 'student');
    ids.minor = await quietMember(t, org, 'student', { publicProfile: true });
    await t.db.query(`UPDATE users SET age_bracket = 'under_18' WHERE id = $1`, [ids.minor]);
    await lessons(t, org, ids.a, 3);
    await lessons(t, org, ids.b, 3);
    await lessons(t, org, ids.c, 2);
    await lessons(t, org, ids.minor, 2);
    await lessons(t, org, inCohort.user.id, 1);
    await lessons(t, orgB, ids.a, 5); // not a member there: nothing
    await settle(t);
  });
  afterAll(() => t.close());

  it('ranks: equal XP shares the rank, ordered by user_id; the next rank counts everyone above', async () => {
    const body = await board(owner);
    const [first, second] = [ids.a, ids.b].sort();
    const [third, fourth] = [ids.c, ids.minor].sort();
    expect(body.items.map((e: Entry) => [e.rank, e.person.user_id, e.xp])).toEqual([
      [1, first, 30],
      [1, second, 30],
      [3, third, 20],
      [3, fourth, 20],
      [5, inCohort.user.id, 10],
    ]);
    expect(body).toMatchObject({
      total: 5,
      limit: 50,
      offset: 0,
      period: {
        period: 'week',
        key: '2026-W48',
        starts_at: '2026-11-23T00:00:00.000Z',
        ends_at: '2026-11-30T00:00:00.000Z',
      },
      me: { rank: null, xp: 0 },
    });
    expect(body.around).toBeUndefined();
    // Paging keeps ranks.
    const page = await board(owner, '?limit=2&offset=2');
    expect(page.items.map((e: Entry) => e.rank)).toEqual([3, 3]);
    expect(page.total).toBe(5);
    await board(owner, '?limit=0', 422);
    await board(owner, '?limit=201', 422);
    await board(owner, '?offset=-1', 422);
  });

  it('persons as the caller may see them: owners see everyone; students see public adults and themselves', async () => {
    const staff = await board(owner);
    expect(staff.items.every((e: Entry) => !e.person.anonymous)).toBe(true);
    const student = await board(inCohort);
    const byId = new Map<string | null, Entry>(student.items.map((e: Entry) => [e.person.user_id, e]));
    expect(byId.get(ids.a)?.person.anonymous).toBe(false);
    expect(byId.has(ids.c)).toBe(false);
    expect(byId.has(ids.minor)).toBe(false);
    expect(student.items.filter((e: Entry) => e.person.anonymous)).toHaveLength(2);
    for (const e of student.items.filter((x: Entry) => x.person.anonymous))
      expect(e.person).toEqual({ user_id: null, username: null, name: null, avatar_svg_url: null, anonymous: true });
    const me = student.items.find((e: Entry) => e.is_me);
    expect(me).toMatchObject({ rank: 5, xp: 10, person: { user_id: inCohort.user.id, anonymous: false } });
    expect(student.me).toEqual({ rank: 5, xp: 10 });
    // A teacher sees the students of their cohort.
    const taught = await board(teacher);
    expect(taught.items.find((e: Entry) => e.person.user_id === inCohort.user.id)).toBeDefined();
  });

  it('around: the caller and up to N places either side', async () => {
    const body = await board(inCohort, '?limit=1&around=2');
    expect(body.items).toHaveLength(1);
    expect(body.around.map((e: Entry) => e.rank)).toEqual([3, 3, 5]);
    expect(body.around.at(-1).is_me).toBe(true);
    expect((await board(owner, '?around=3')).around).toEqual([]);
    await board(owner, '?around=26', 422);
  });

  it('periods: month and all; a past week by key; 422 for future, malformed or too old keys', async () => {
    expect((await board(owner, '?period=month')).period).toEqual({
      period: 'month',
      key: '2026-11',
      starts_at: '2026-11-01T00:00:00.000Z',
      ends_at: '2026-12-01T00:00:00.000Z',
    });
    expect((await board(owner, '?period=all')).period).toEqual({
      period: 'all',
      key: 'all',
      starts_at: null,
      ends_at: null,
    });
    // XP earned last week counts there, not in this week.
    const past = await quietMember(t, org, 'student', { publicProfile: true });
    setClock('2026-11-18T12:00:00Z');
    await lessons(t, org, past, 4);
    await settle(t);
    setClock('2026-11-25T12:00:00Z');
    const lastWeek = await board(owner, '?period_key=2026-W47');
    expect(lastWeek.items.map((e: Entry) => [e.rank, e.person.user_id, e.xp])).toEqual([[1, past, 40]]);
    expect((await board(owner)).items.some((e: Entry) => e.person.user_id === past)).toBe(false);
    expect((await board(owner, '?period=all')).items[0]).toMatchObject({ rank: 1, xp: 40 });
    expect((await board(owner, '?period=month')).items[0]).toMatchObject({ rank: 1, xp: 40 });
    await board(owner, '?period_key=2025-W48'); // 52 weeks back
    await board(owner, '?period_key=2025-W47', 422); // 53
    await board(owner, '?period=month&period_key=2024-11'); // 24 months back
    await board(owner, '?period=month&period_key=2024-10', 422);
    for (const bad of ['2026-W49', '2026-W99', '2026-W00', 'abc', '2026-11'])
      await board(owner, `?period_key=${bad}`, 422);
    for (const bad of ['2026-12', '2026-13', '2026-W47']) await board(owner, `?period=month&period_key=${bad}`, 422);
    await board(owner, '?period=all&period_key=2026-W48', 422);
    await board(owner, '?period=year', 422);
  });

  it('periods follow the organization’s zone', async () => {
    await owner.agent.patch(`/api/v1/organizations/${org}`).send({ time_zone: 'Pacific/Auckland' }).expect(200);
    const body = await board(owner);
    expect(body.period).toMatchObject({
      key: '2026-W48',
      starts_at: '2026-11-22T11:00:00.000Z',
      ends_at: '2026-11-29T11:00:00.000Z',
    });
    await owner.agent.patch(`/api/v1/organizations/${org}`).send({ time_zone: 'UTC' }).expect(200);
  });

  it('cohorts: its students and teachers only; 404 for another organization’s cohort; 403 for people outside it', async () => {
    const body = await board(teacher, `?cohort_id=${cohort}`);
    expect(body.items.map((e: Entry) => [e.rank, e.person.user_id])).toEqual([[1, inCohort.user.id]]);
    expect(body.me).toEqual({ rank: null, xp: 0 });
    expect((await board(inCohort, `?cohort_id=${cohort}&around=1`)).around).toHaveLength(1);
    await board(owner, `?cohort_id=${cohort}`);
    await board(owner, `?cohort_id=${cohortB}`, 404);
    await board(owner, '?cohort_id=00000000-0000-4000-8000-000000000000', 404);
    const refused = await board(outside, `?cohort_id=${cohort}`, 403);
    expect(refused.error.code).toBe('forbidden');
    await board(owner, '?cohort_id=nope', 422);
  });

  it('the Redis sets give the ledger’s answer, and a rebuild restores it after the cache went wrong', async () => {
    const store = t.app.get(LeaderboardStore);
    expect(store).toBeInstanceOf(RedisLeaderboardStore);
    const ledger = t.app.get(LedgerBoards);
    const windows = [
      {
        organizationId: org,
        key: '2026-W48',
        start: new Date('2026-11-23T00:00:00Z'),
        end: new Date('2026-11-30T00:00:00Z'),
      },
      { organizationId: org, key: 'all', start: null, end: null },
    ];
    for (const w of windows) expect(await store.page(w, 50, 0)).toEqual(await ledger.page(w, 50, 0));
    // Break the cached week (a lost increment and a stray member), then rebuild.
    const redis = t.app.get<Redis>(REDIS);
    const key = (store as RedisLeaderboardStore).key(org, '2026-W48');
    await redis.zadd(key, -999, '00000000-0000-4000-8000-000000000001');
    await redis.zincrby(key, 10, ids.a);
    expect(await store.page(windows[0], 50, 0)).not.toEqual(await ledger.page(windows[0], 50, 0));
    expect(await t.app.get(LeaderboardsService).rebuild(org)).toEqual({ organizations: 1 });
    for (const w of windows) {
      expect(await store.page(w, 50, 0)).toEqual(await ledger.page(w, 50, 0));
      for (const id of Object.values(ids)) expect(await store.standing(w, id)).toEqual(await ledger.standing(w, id));
    }
    // New XP after the rebuild is applied to the cached sets.
    await lessons(t, org, ids.c, 2);
    await settle(t);
    expect((await board(owner)).items[0]).toMatchObject({ rank: 1, xp: 40, person: { user_id: ids.c } });
    for (const w of windows) expect(await store.page(w, 50, 0)).toEqual(await ledger.page(w, 50, 0));
  });
});

describe('gamification: leaderboard without Redis (embedded mode)', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('answers from the ledger with the same rules', async () => {
    t = await createTestApp({ redis: false, clockOffsetMs: Date.parse('2026-11-25T12:00:00Z') - Date.now() });
    expect(t.app.get(LeaderboardStore)).toBeInstanceOf(PostgresLeaderboardStore);
    const owner = await adult(t);
    const org = await createOrganization(t, owner);
    const a = await quietMember(t, org, 'student', { publicProfile: true });
    const b = await quietMember(t, org, 'student', { publicProfile: true });
    await lessons(t, org, a, 2);
    await lessons(t, org, b, 2);
    await lessons(t, org, owner.user.id, 1);
    await settle(t);
    const body = (await owner.agent.get(`/api/v1/organizations/${org}/leaderboard?around=1`).expect(200)).body;
    expect(body.items.map((e: Entry) => [e.rank, e.person.user_id, e.xp])).toEqual([
      [1, [a, b].sort()[0], 20],
      [1, [a, b].sort()[1], 20],
      [3, owner.user.id, 10],
    ]);
    expect(body.me).toEqual({ rank: 3, xp: 10 });
    expect(body.around.map((e: Entry) => e.rank)).toEqual([1, 3]);
    expect(await t.app.get(LeaderboardsService).rebuild(org)).toEqual({ organizations: 1 });
  });
});
