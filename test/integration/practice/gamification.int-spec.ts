import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '@/core/events/event-catalog';
import {
  EngagementSubscriber,
  LeaderboardStore,
  LedgerBoards,
  RedisLeaderboardStore,
  LedgerRepository,
  StreaksRepository,
  type AwardCandidate,
  type XpSource,
} from '@/modules/practice/gamification/testing';
import { StreaksService, type Effects, XpLedgerService } from '@/modules/practice/gamification';
import {
  clockAt,
  createIntegration,
  type Integration,
  insertMember,
  insertOrganization,
  insertUser,
} from '../../support/integration';

/**
 * The XP ledger and streaks (extensions-v2 3.2, 3.4) on the real database: what an event delivery writes, without
 * the events, the HTTP layer or the rest of the application.
 */
describe('XP ledger and streaks (integration)', () => {
  let it_: Integration;
  let ledger: XpLedgerService;
  let org: string;

  beforeAll(async () => {
    it_ = await createIntegration({
      providers: [
        LedgerRepository,
        StreaksRepository,
        StreaksService,
        XpLedgerService,
        LedgerBoards,
        EngagementSubscriber,
        { provide: LeaderboardStore, useClass: RedisLeaderboardStore },
      ],
    });
    ledger = it_.get(XpLedgerService);
    org = await insertOrganization(it_.db);
  });

  afterAll(async () => {
    await it_?.close();
  });

  const award = (userId: string, source: XpSource, sourceId: string, amount: number, at: string): AwardCandidate => ({
    organizationId: org,
    userId,
    source,
    sourceId,
    amount,
    occurredAt: new Date(at),
  });
  const apply = (effects: Partial<Effects>) =>
    it_.tx((tx) => ledger.apply(tx, { awards: [], activity: [], badges: [], ...effects }));
  const ledgerOf = (userId: string) =>
    it_.db.query<{ source: string; amount: number; local_date: string }[]>(
      `SELECT source, amount, local_date::text AS local_date FROM xp_ledger WHERE user_id = $1 ORDER BY created_at, source_id`,
      [userId],
    );
  const totalOf = async (userId: string): Promise<number> => {
    const rows = await it_.db.query<{ xp: number }[]>(
      `SELECT xp::int AS xp FROM xp_totals WHERE organization_id = $1 AND user_id = $2`,
      [org, userId],
    );
    return rows[0]?.xp ?? 0;
  };
  async function member(timeZone = 'UTC'): Promise<string> {
    const { id } = await insertUser(it_.db, { timeZone });
    await insertMember(it_.db, org, id);
    return id;
  }

  it('caps reviews at 50 XP per local day, the 51st review of the day is not written', async () => {
    clockAt(it_.clock, '2026-11-29T12:00:00Z');
    const id = await member();
    const reviews = Array.from({ length: 60 }, (_, i) => award(id, 'review', `card-${i}`, 1, '2026-11-29T11:00:00Z'));
    const written = await apply({ awards: reviews });
    expect(written).toHaveLength(50);
    expect(await totalOf(id)).toBe(50);
    // A later batch of the same day adds nothing; a lesson (uncapped) still counts.
    await apply({
      awards: [
        award(id, 'review', 'card-60', 1, '2026-11-29T11:30:00Z'),
        award(id, 'lesson', 'l-1', 10, '2026-11-29T11:30:00Z'),
      ],
    });
    expect(await totalOf(id)).toBe(60);
  });

  it('the cap counts per local day of the person: past local midnight the reviews count again', async () => {
    clockAt(it_.clock, '2026-11-29T12:00:00Z');
    // Auckland is UTC+13 in November: 10:30Z is 23:30 on the 29th, 11:30Z is 00:30 on the 30th.
    const id = await member('Pacific/Auckland');
    const before = Array.from({ length: 55 }, (_, i) => award(id, 'review', `a-${i}`, 1, '2026-11-29T10:30:00Z'));
    const after = Array.from({ length: 5 }, (_, i) => award(id, 'review', `b-${i}`, 1, '2026-11-29T11:30:00Z'));
    await apply({ awards: [...before, ...after] });
    const rows = await ledgerOf(id);
    const byDay = rows.reduce<Record<string, number>>(
      (acc, r) => ({ ...acc, [r.local_date]: (acc[r.local_date] ?? 0) + r.amount }),
      {},
    );
    expect(byDay).toEqual({ '2026-11-29': 50, '2026-11-30': 5 });
    expect(await totalOf(id)).toBe(55);
  });

  it('partially fills the cap (a game worth 30 with 90 already today writes 10) and writes a source key once', async () => {
    clockAt(it_.clock, '2026-11-29T12:00:00Z');
    const id = await member();
    await apply({ awards: [0, 1, 2].map((i) => award(id, 'game', `g-${i}`, 30, '2026-11-29T09:00:00Z')) });
    expect(await totalOf(id)).toBe(90);
    await apply({ awards: [award(id, 'game', 'g-3', 30, '2026-11-29T10:00:00Z')] });
    expect((await ledgerOf(id)).map((r) => r.amount)).toEqual([30, 30, 30, 10]);
    await apply({ awards: [award(id, 'lesson', 'same', 10, '2026-11-29T10:00:00Z')] });
    await apply({ awards: [award(id, 'lesson', 'same', 10, '2026-11-29T10:05:00Z')] });
    expect(await totalOf(id)).toBe(110);
  });

  it('writes nothing for someone who is not a member of the organization', async () => {
    clockAt(it_.clock, '2026-11-29T12:00:00Z');
    const { id } = await insertUser(it_.db);
    expect(await apply({ awards: [award(id, 'lesson', 'l', 10, '2026-11-29T10:00:00Z')] })).toEqual([]);
    expect(await ledgerOf(id)).toEqual([]);
  });

  it('XP rules: what each learning fact is worth, once per source key, as the subscriber writes it', async () => {
    clockAt(it_.clock, '2026-11-29T12:00:00Z');
    const id = await member();
    const rival = await member();
    const [lesson, course, exam, flaggedExam, game, bigGame, lostGame, won, drawn, forfeit] = Array.from(
      { length: 10 },
      () => randomUUID(),
    );
    let n = 0;
    const event = (name: string, payload: Record<string, unknown>) =>
      ({
        id: randomUUID(),
        name,
        version: 1,
        organization_id: org,
        actor_id: null,
        occurred_at: new Date(Date.parse('2026-11-29T10:00:00Z') + ++n * 1000),
        payload,
      }) as unknown as DomainEvent<'lesson.completed'>;
    const deliver = (...events: DomainEvent<'lesson.completed'>[]) =>
      it_.tx((tx) =>
        it_.get(EngagementSubscriber).onLearning(events, { tx, attempt: 1, subscriber: 'gamification.engagement' }),
      );
    await deliver(
      event('lesson.completed', { user_id: id, course_id: course, lesson_id: lesson }),
      // A failed quiz is worth nothing; the first pass 20, a second pass of the same quiz nothing.
      event('quiz.submitted', { user_id: id, course_id: course, lesson_id: lesson, score: 40, passed: false }),
      event('quiz.submitted', { user_id: id, course_id: course, lesson_id: lesson, score: 80, passed: true }),
      event('quiz.submitted', { user_id: id, course_id: course, lesson_id: lesson, score: 100, passed: true }),
      event('course.completed', { user_id: id, course_id: course, completed_at: '2026-11-29T10:00:00Z' }),
      // A flagged pass waits for its review; an accepting review of a pass gives it.
      event('exam.submitted', { user_id: id, exam_id: flaggedExam, score: 90, passed: true, flagged: true }),
      event('exam.submitted', { user_id: id, exam_id: exam, score: 70, passed: true, flagged: false }),
      // Games: min(30, floor(score / 10)); an abandoned game nothing.
      event('game.finished', { user_id: id, game_id: game, score: 129, end_reason: 'finished' }),
      event('game.finished', { user_id: id, game_id: bigGame, score: 457, end_reason: 'finished' }),
      event('game.finished', { user_id: id, game_id: lostGame, score: 300, end_reason: 'abandoned' }),
      // Duels: 15 to the winner, nothing to the loser, 5 each for a draw; a forfeit before round 2 nothing.
      event('duel.finished', {
        duel_id: won,
        challenger_id: id,
        opponent_id: rival,
        winner_id: id,
        reason: 'completed',
        rounds_started: 5,
      }),
      event('duel.finished', {
        duel_id: drawn,
        challenger_id: rival,
        opponent_id: id,
        winner_id: null,
        reason: 'completed',
        rounds_started: 5,
      }),
      event('duel.finished', {
        duel_id: forfeit,
        challenger_id: id,
        opponent_id: rival,
        winner_id: id,
        reason: 'forfeit',
        rounds_started: 1,
      }),
    );
    // The same lesson again (a second event about the fact) and the review accepting the flagged pass.
    await deliver(
      event('lesson.completed', { user_id: id, course_id: course, lesson_id: lesson }),
      event('exam.reviewed', { user_id: id, exam_id: flaggedExam, decision: 'accept', passed: true, score: 90 }),
    );
    const keys = await it_.db.query<{ user_id: string; source_key: string; amount: number }[]>(
      `SELECT user_id, source || ':' || source_id AS source_key, amount FROM xp_ledger
       WHERE user_id = ANY($1) ORDER BY user_id = $2 DESC, occurred_at, source_id`,
      [[id, rival], id],
    );
    expect(keys.map((k) => [k.user_id === id ? 'me' : 'rival', k.source_key, k.amount])).toEqual([
      ['me', `lesson:${lesson}`, 10],
      ['me', `quiz_pass:${lesson}`, 20],
      ['me', `course:${course}`, 100],
      ['me', `exam_pass:${exam}`, 50],
      ['me', `game:${game}`, 12],
      ['me', `game:${bigGame}`, 30],
      ['me', `duel:${won}`, 15],
      ['me', `duel:${drawn}`, 5],
      ['me', `exam_pass:${flaggedExam}`, 50],
      ['rival', `duel:${drawn}`, 5],
    ]);
    expect(await totalOf(id)).toBe(292);
    expect(await totalOf(rival)).toBe(5);
  });

  describe('streak days in the person’s time zone', () => {
    const active = (userId: string, at: string) => ({
      organizationId: org,
      userId,
      counter: 'lessons_completed' as const,
      occurredAt: new Date(at),
      active: true,
    });

    it('two facts 13 hours apart are two days in Los Angeles and one day in UTC', async () => {
      clockAt(it_.clock, '2026-11-29T21:00:00Z');
      const la = await member('America/Los_Angeles');
      const utc = await member('UTC');
      // 07:00Z is 23:00 on the 28th in Los Angeles (UTC-8); 20:00Z is 12:00 on the 29th.
      for (const at of ['2026-11-29T07:00:00Z', '2026-11-29T20:00:00Z'])
        await apply({ activity: [active(la, at), active(utc, at)] });
      const streaks = it_.get(StreaksService);
      expect(await streaks.view(la)).toMatchObject({ current: 2, today_active: true, last_active_on: '2026-11-29' });
      expect(await streaks.view(utc)).toMatchObject({ current: 1, today_active: true, last_active_on: '2026-11-29' });
    });

    it('a missed local day ends the streak when there is no freeze; the next active day starts at 1', async () => {
      clockAt(it_.clock, '2026-11-20T10:00:00Z');
      const id = await member('Europe/Madrid');
      await apply({ activity: [active(id, '2026-11-20T10:00:00Z')] });
      clockAt(it_.clock, '2026-11-21T10:00:00Z');
      await apply({ activity: [active(id, '2026-11-21T10:00:00Z')] });
      const streaks = it_.get(StreaksService);
      expect(await streaks.view(id)).toMatchObject({ current: 2, longest: 2 });
      // Nothing on the 22nd, 23rd, 24th: more days missed than freezes can cover.
      clockAt(it_.clock, '2026-11-25T10:00:00Z');
      const view = await streaks.view(id);
      expect(view.current).toBe(0);
      expect(view.longest).toBe(2);
      await apply({ activity: [active(id, '2026-11-25T10:00:00Z')] });
      expect(await streaks.view(id)).toMatchObject({ current: 1, longest: 2, today_active: true });
    });
  });

  it('gamification_streak_current (the reports read it in SQL) answers what StreaksService.currentOf answers', async () => {
    // Random streak states and active days (a fixed seed, so a failure repeats), each of a new person in a zone,
    // read at an instant: the SQL twin of evaluate()/currentStreak() must agree with the service on every one.
    let seed = 20261129;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const zones = ['UTC', 'Pacific/Kiritimati', 'America/Los_Angeles'];
    const day = (d: string, n: number): string =>
      new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    const service = it_.get(StreaksService);
    const mismatches: string[] = [];
    const answers: number[] = [];
    for (let i = 0; i < 120; i++) {
      const zone = zones[rand(zones.length)];
      const { id } = await insertUser(it_.db, { timeZone: zone });
      const first = day('2026-10-01', rand(40));
      const active = [first, ...Array.from({ length: 30 }, (_, k) => day(first, k + 1)).filter(() => rand(3) > 0)];
      const through = rand(8) === 0 ? null : day(first, rand(25) - 1);
      const grants = through === null ? null : day(through, rand(2));
      const last = through === null || rand(4) === 0 ? null : day(through, -rand(3));
      const state = {
        count: last === null ? 0 : 1 + rand(6),
        last,
        freezes: rand(3),
        first: rand(10) === 0 ? null : first,
        through,
        grants,
      };
      await it_.db.query(
        `INSERT INTO streaks (user_id, run_count, run_last, longest, freezes, first_active_on, last_active_on,
           evaluated_through, grants_through, updated_at) VALUES ($1, $2, $3, $2, $4, $5, $6, $7, $8, now())`,
        [id, state.count, state.last, state.freezes, state.first, active.at(-1), state.through, state.grants],
      );
      await it_.db.query(
        `INSERT INTO activity_days (user_id, organization_id, local_date, active) SELECT $1, $2, d, true
         FROM unnest($3::date[]) d`,
        [id, org, active],
      );
      const at = new Date(Date.parse(`${first}T00:00:00Z`) + rand(45 * 24) * 3_600_000 + rand(60) * 60_000);
      const expected = (await service.currentOf([id], at)).get(id)!.current;
      const [row] = await it_.db.query<{ n: number }[]>(`SELECT gamification_streak_current($1, $2) AS n`, [id, at]);
      answers.push(expected);
      if (row.n !== expected)
        mismatches.push(`${JSON.stringify({ zone, state, active, at })}: ${row.n} <> ${expected}`);
    }
    expect(mismatches).toEqual([]);
    // The cases reach live runs, lapsed ones and several lengths, so the agreement is not only on zeros.
    expect(answers.filter((n) => n === 0).length).toBeGreaterThan(10);
    expect(new Set(answers.filter((n) => n > 0)).size).toBeGreaterThan(3);
    // Someone without a streak row reads 0, as the service answers.
    const { id: nobody } = await insertUser(it_.db);
    const [none] = await it_.db.query<{ n: number }[]>(`SELECT gamification_streak_current($1, now()) AS n`, [nobody]);
    expect(none.n).toBe(0);
  });
});
