import { randomUUID } from 'node:crypto';
import type { SignedIn } from '../../support/auth';
import { lessonCompleted, publish } from '../../support/engagement';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** Daily reward, missions, badges and titles (extensions-v2 5.2-5.5, 5.7). */
describe('gamification: daily reward, missions, badges, titles', () => {
  let t: TestApp;
  let owner: SignedIn;
  let org: string;
  let orgB: string;

  const setClock = (iso: string | Date): void => t.clock.advance(new Date(iso).getTime() - t.clock.nowMs());
  async function member(zone = 'UTC', o = org): Promise<SignedIn & { refresh: () => Promise<SignedIn> }> {
    const s = await adult(t);
    await addMember(t, o, s.user.id, 'student');
    await s.agent.patch('/api/v1/me/profile').send({ time_zone: zone }).expect(200);
    return {
      ...s,
      refresh: async () => {
        await s.agent.post('/api/v1/auth/refresh').expect(200);
        return s;
      },
    };
  }
  const url = (path: string, o = org) => `/api/v1/organizations/${o}${path}`;

  beforeAll(async () => {
    t = await createTestApp({ clockOffsetMs: Date.parse('2026-11-23T10:00:00Z') - Date.now() });
    owner = await adult(t);
    org = await createOrganization(t, owner);
    orgB = await createOrganization(t, owner, 'Second');
  });
  afterAll(() => t.close());

  describe('daily reward', () => {
    it('once per local day: 5, 10, 15, 20, 25, 25; a missed day starts again; 409 on a second claim', async () => {
      setClock('2026-11-23T10:00:00Z');
      const s = await member('Europe/Madrid');
      const open = (await s.agent.get(url('/daily-reward')).expect(200)).body;
      expect(open).toEqual({
        claimed_today: false,
        consecutive_days: 0,
        next_amount: 5,
        next_claim_at: expect.any(String),
      });
      // "now" (the Clock follows real time between the request and here).
      expect(Math.abs(Date.parse(open.next_claim_at) - t.clock.nowMs())).toBeLessThan(5_000);
      expect((await s.agent.post(url('/daily-reward/claim')).expect(200)).body).toEqual({
        amount: 5,
        consecutive_days: 1,
        xp_total: 5,
      });
      const again = await s.agent.post(url('/daily-reward/claim')).expect(409);
      expect(again.body.error.code).toBe('daily_reward_already_claimed');
      expect((await s.agent.get(url('/daily-reward')).expect(200)).body).toEqual({
        claimed_today: true,
        consecutive_days: 1,
        next_amount: 10,
        next_claim_at: '2026-11-23T23:00:00.000Z', // midnight in Madrid
      });
      // 23:30 UTC is already the next day in Madrid.
      setClock('2026-11-23T23:30:00Z');
      await s.refresh();
      const amounts = [(await s.agent.post(url('/daily-reward/claim')).expect(200)).body.amount];
      for (let d = 25; d <= 29; d++) {
        setClock(`2026-11-${d}T12:00:00Z`);
        await s.refresh();
        amounts.push((await s.agent.post(url('/daily-reward/claim')).expect(200)).body.amount);
      }
      expect(amounts).toEqual([10, 15, 20, 25, 25, 25]);
      setClock('2026-12-01T12:00:00Z'); // the 30th was missed
      await s.refresh();
      expect((await s.agent.get(url('/daily-reward')).expect(200)).body).toMatchObject({
        consecutive_days: 0,
        next_amount: 5,
      });
      expect((await s.agent.post(url('/daily-reward/claim')).expect(200)).body).toEqual({
        amount: 5,
        consecutive_days: 1,
        xp_total: 5 + 10 + 15 + 20 + 25 + 25 + 25 + 5,
      });
      // Claims are not learning activity: no active day, no streak.
      expect((await s.agent.get('/api/v1/me/streak').expect(200)).body.current).toBe(0);
      const history = (await s.agent.get(url('/xp/history?limit=1')).expect(200)).body.items[0];
      expect(history).toMatchObject({
        source: 'daily_reward',
        source_id: '2026-12-01',
        label: 'Recompensa diaria: 2026-12-01',
      });
    });

    it('is per organization', async () => {
      setClock('2026-12-02T12:00:00Z');
      const s = await member('UTC');
      await addMember(t, orgB, s.user.id, 'student');
      await s.agent.post(url('/daily-reward/claim')).expect(200);
      await s.agent.post(url('/daily-reward/claim', orgB)).expect(200);
      await s.agent.post(url('/daily-reward/claim', orgB)).expect(409);
    });
  });

  describe('missions', () => {
    it('six missions of the day and week, progress from this organization, claims with 409s and 404s', async () => {
      setClock('2026-12-07T10:00:00Z'); // Monday
      const s = await member('UTC');
      await addMember(t, orgB, s.user.id, 'student');
      let list = (await s.agent.get(url('/missions')).expect(200)).body.items;
      expect(list.map((m: { id: string }) => m.id)).toEqual([
        'daily_lesson-2026-12-07',
        'daily_xp_50-2026-12-07',
        'daily_reviews_10-2026-12-07',
        'weekly_lessons_5-2026-W50',
        'weekly_active_5-2026-W50',
        'weekly_play_3-2026-W50',
      ]);
      expect(list[0]).toEqual({
        id: 'daily_lesson-2026-12-07',
        code: 'daily_lesson',
        period: 'day',
        period_key: '2026-12-07',
        title: 'Lección del día',
        description: 'Completa 1 lección',
        target: 1,
        progress: 0,
        completed: false,
        claimed: false,
        reward_xp: 10,
        ends_at: '2026-12-08T00:00:00.000Z',
        claimable_until: '2026-12-09T00:00:00.000Z',
      });
      expect(list[3]).toMatchObject({ ends_at: '2026-12-14T00:00:00.000Z', target: 5, reward_xp: 40 });
      const notYet = await s.agent.post(url('/missions/daily_lesson-2026-12-07/claim')).expect(409);
      expect(notYet.body.error.code).toBe('mission_not_completed');
      // A lesson in another organization does not count here.
      await publish(t, 'lesson.completed', lessonCompleted(s.user.id), orgB, { occurredAt: t.clock.now() });
      expect((await s.agent.get(url('/missions')).expect(200)).body.items[0].progress).toBe(0);
      await publish(t, 'lesson.completed', lessonCompleted(s.user.id), org, { occurredAt: t.clock.now() });
      list = (await s.agent.get(url('/missions')).expect(200)).body.items;
      expect(list[0]).toMatchObject({ progress: 1, completed: true });
      expect(list[3]).toMatchObject({ progress: 1, completed: false });
      const claim = (await s.agent.post(url('/missions/daily_lesson-2026-12-07/claim')).expect(200)).body;
      expect(claim).toEqual({ mission: { ...list[0], claimed: true }, xp: { awarded: 10, total: 20 } });
      const twice = await s.agent.post(url('/missions/daily_lesson-2026-12-07/claim')).expect(409);
      expect(twice.body.error.code).toBe('mission_already_claimed');
      // Mission and daily-reward XP do not count toward daily_xp_50.
      await s.agent.post(url('/daily-reward/claim')).expect(200);
      list = (await s.agent.get(url('/missions')).expect(200)).body.items;
      expect(list[1]).toMatchObject({ code: 'daily_xp_50', progress: 10 });
      for (const bad of [
        'nope-2026-12-07',
        'daily_lesson-2026-12-08',
        'daily_lesson-2026-13-01',
        'daily_lesson-W50',
        'weekly_lessons_5-2026-12-07',
      ])
        await s.agent.post(url(`/missions/${bad}/claim`)).expect(404);
    });

    it('the previous period’s completed missions stay claimable for 24 hours after it ends', async () => {
      setClock('2026-12-14T10:00:00Z'); // Monday
      const s = await member('UTC');
      for (let i = 0; i < 10; i++)
        await publish(
          t,
          'flashcard.reviewed',
          { user_id: s.user.id, review_id: randomUUID(), card_id: randomUUID(), deck_id: randomUUID(), grade: 4 },
          org,
          { occurredAt: t.clock.now(), settle: i === 9 },
        );
      setClock('2026-12-15T10:00:00Z');
      await s.refresh();
      const list = (await s.agent.get(url('/missions')).expect(200)).body.items;
      expect(list.map((m: { id: string }) => m.id)).toEqual([
        'daily_lesson-2026-12-15',
        'daily_xp_50-2026-12-15',
        'daily_reviews_10-2026-12-15',
        'weekly_lessons_5-2026-W51',
        'weekly_active_5-2026-W51',
        'weekly_play_3-2026-W51',
        'daily_reviews_10-2026-12-14',
      ]);
      setClock('2026-12-15T23:59:59Z');
      await s.refresh();
      await s.agent.post(url('/missions/daily_reviews_10-2026-12-14/claim')).expect(200);
      setClock('2026-12-16T00:00:00Z');
      await s.refresh();
      await s.agent.post(url('/missions/daily_lesson-2026-12-14/claim')).expect(404);
      expect((await s.agent.get(url('/missions')).expect(200)).body.items).toHaveLength(6);
    });
  });

  describe('badges and titles', () => {
    it('lists every system badge with progress, awards once and publishes badge.awarded; program badges appear', async () => {
      setClock('2026-12-21T10:00:00Z');
      const s = await member('UTC');
      let items = (await s.agent.get(url('/badges')).expect(200)).body.items;
      expect(items.map((b: { code: string }) => b.code)).toEqual([
        'first_lesson',
        'first_course',
        'five_courses',
        'quiz_ace',
        'exam_passed',
        'streak_7',
        'streak_30',
        'streak_100',
        'reviews_100',
        'reviews_1000',
        'first_duel_win',
        'duels_10',
        'level_10',
        'challenge_podium',
      ]);
      expect(items[0]).toEqual({
        code: 'first_lesson',
        kind: 'system',
        name: 'Primera lección',
        description: 'Completa tu primera lección',
        icon: 'badge-first-lesson',
        earned: false,
        earned_at: null,
        progress: { current: 0, target: 1 },
      });
      expect(items[3].progress).toBeNull();
      await publish(t, 'lesson.completed', lessonCompleted(s.user.id), org, { occurredAt: t.clock.now() });
      await publish(t, 'lesson.completed', lessonCompleted(s.user.id), org, { occurredAt: t.clock.now() });
      for (let i = 0; i < 2; i++)
        await publish(
          t,
          'course.completed',
          { user_id: s.user.id, course_id: randomUUID(), completed_at: t.clock.now().toISOString() },
          org,
        );
      await publish(
        t,
        'quiz.submitted',
        {
          user_id: s.user.id,
          course_id: randomUUID(),
          lesson_id: randomUUID(),
          quiz_id: randomUUID(),
          submission_id: randomUUID(),
          score: 100,
          passed: true,
          first_pass: true,
        },
        org,
      );
      const path = (await t.db.query(`SELECT id FROM learning_paths LIMIT 1`))[0]?.id ?? null;
      await t.db.query(
        `INSERT INTO badge_awards (organization_id, user_id, path_id, name, icon, code, kind) VALUES ($1, $2, $3, 'Data program', 'rocket', $4, 'program')`,
        [org, s.user.id, path, `program-${path ?? randomUUID()}`],
      );
      items = (await s.agent.get(url('/badges')).expect(200)).body.items;
      const byCode = new Map(items.map((b: { code: string }) => [b.code, b]));
      expect(byCode.get('first_lesson')).toMatchObject({ earned: true, progress: { current: 1, target: 1 } });
      expect(byCode.get('first_course')).toMatchObject({ earned: true });
      expect(byCode.get('five_courses')).toMatchObject({ earned: false, progress: { current: 2, target: 5 } });
      expect(byCode.get('quiz_ace')).toMatchObject({ earned: true, progress: null });
      expect(byCode.get('level_10')).toMatchObject({ earned: false, progress: { current: 240, target: 4500 } });
      expect(items.at(-1)).toMatchObject({
        kind: 'program',
        name: 'Data program',
        icon: 'rocket',
        earned: true,
        progress: null,
      });
      const events = await t.db.query(
        `SELECT payload->>'code' AS code, payload->>'kind' AS kind FROM domain_events
         WHERE name = 'badge.awarded' AND payload->>'user_id' = $1 ORDER BY payload->>'code'`,
        [s.user.id],
      );
      expect(events).toEqual([
        { code: 'first_course', kind: 'system' },
        { code: 'first_lesson', kind: 'system' },
        { code: 'quiz_ace', kind: 'system' },
      ]);
      // The English names for an English speaker.
      await s.agent.patch('/api/v1/me/profile').send({ locale: 'en' }).expect(200);
      expect((await s.agent.get(url('/badges')).expect(200)).body.items[0].name).toBe('First lesson');
    });

    it('titles: unlocked by level or badge; 409 when locked; 422 for an unknown code; null clears; stays chosen', async () => {
      setClock('2026-12-22T10:00:00Z');
      const s = await member('UTC');
      let titles = (await s.agent.get(url('/titles')).expect(200)).body;
      expect(titles.current).toBeNull();
      expect(titles.items).toHaveLength(9);
      expect(titles.items[0]).toEqual({
        code: 'novice',
        name: 'Novato',
        unlocked: true,
        requirement: { type: 'level', value: 1 },
      });
      expect(titles.items[6]).toMatchObject({
        code: 'marathoner',
        unlocked: false,
        requirement: { type: 'badge', value: 'streak_30' },
      });
      const locked = await s.agent.put(url('/titles/current')).send({ code: 'apprentice' }).expect(409);
      expect(locked.body.error.code).toBe('title_locked');
      await s.agent.put(url('/titles/current')).send({ code: 'emperor' }).expect(422);
      await s.agent.put(url('/titles/current')).send({ code: 7 }).expect(422);
      await s.agent.put(url('/titles/current')).send({}).expect(422);
      expect((await s.agent.put(url('/titles/current')).send({ code: 'novice' }).expect(200)).body).toEqual({
        current: 'novice',
      });
      for (let i = 0; i < 10; i++)
        await publish(
          t,
          'course.completed',
          { user_id: s.user.id, course_id: randomUUID(), completed_at: t.clock.now().toISOString() },
          org,
          { settle: i === 9 },
        );
      titles = (await s.agent.get(url('/titles')).expect(200)).body;
      expect(titles.items[1]).toMatchObject({ code: 'apprentice', unlocked: true });
      await s.agent.put(url('/titles/current')).send({ code: 'apprentice' }).expect(200);
      expect((await s.agent.get(url('/titles')).expect(200)).body.current).toBe('apprentice');
      expect((await s.agent.put(url('/titles/current')).send({ code: null }).expect(200)).body).toEqual({
        current: null,
      });
      // Per organization.
      await addMember(t, orgB, s.user.id, 'student');
      await s.agent.put(url('/titles/current', orgB)).send({ code: 'apprentice' }).expect(409);
    });
  });
});
