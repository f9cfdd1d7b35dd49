import { randomUUID } from 'node:crypto';
import { EngagementDigest } from '@/core/ports/engagement-digest';
import { atLocalTime } from '@/core/time/local-time';
import type { SignedIn } from '../../support/auth';
import { lessonCompleted, publish } from '../../support/engagement';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Streaks, activity and goals (extensions-v2 3.4, 3.5, 5.7) in the person's zone, with the Clock moved (never
 * slept): the example of the spec, a DST change, changes of zone, milestones, the activity calendar and goals.
 */
describe('gamification: streaks, activity and goals', () => {
  let t: TestApp;
  let owner: SignedIn;
  let org: string;
  let orgB: string;

  const setClock = (iso: string | Date): void => t.clock.advance(new Date(iso).getTime() - t.clock.nowMs());
  /** A person of `org` in `zone`; the session is refreshed before each use (access tokens follow the Clock). */
  async function person(zone = 'UTC'): Promise<{ id: string; email: string; agent: () => Promise<SignedIn> }> {
    const s = await adult(t);
    await addMember(t, org, s.user.id, 'student');
    await s.agent.patch('/api/v1/me/profile').send({ time_zone: zone }).expect(200);
    return {
      id: s.user.id,
      email: s.email,
      agent: async () => {
        await s.agent.post('/api/v1/auth/refresh').expect(200);
        return s;
      },
    };
  }
  const lesson = (userId: string, at: Date | string, o = org) =>
    publish(t, 'lesson.completed', lessonCompleted(userId), o, { occurredAt: new Date(at) });
  const streakOf = async (p: { agent: () => Promise<SignedIn> }) =>
    (await (await p.agent()).agent.get('/api/v1/me/streak').expect(200)).body;

  beforeAll(async () => {
    t = await createTestApp({ clockOffsetMs: Date.parse('2026-10-01T09:00:00Z') - Date.now() });
    owner = await adult(t);
    org = await createOrganization(t, owner);
    orgB = await createOrganization(t, owner, 'Second');
  });
  afterAll(() => t.close());

  it('the example of the spec: Thursday is frozen, Friday counts 4, Sunday is 0', async () => {
    setClock('2026-11-02T08:00:00Z'); // Monday
    const p = await person('UTC');
    expect(await streakOf(p)).toEqual({
      current: 0,
      longest: 0,
      today_active: false,
      at_risk: false,
      freezes_available: 0,
      freezes_cap: 2,
      last_active_on: null,
      time_zone: 'UTC',
      frozen_on: [],
    });
    for (const day of ['02', '03', '04']) {
      setClock(`2026-11-${day}T12:00:00Z`);
      await lesson(p.id, t.clock.now());
    }
    expect(await streakOf(p)).toMatchObject({ current: 3, today_active: true, at_risk: false, freezes_available: 1 });
    setClock('2026-11-05T18:00:00Z'); // Thursday, nothing yet
    expect(await streakOf(p)).toMatchObject({ current: 3, today_active: false, at_risk: true, freezes_available: 1 });
    setClock('2026-11-06T12:00:00Z'); // Friday
    await lesson(p.id, t.clock.now());
    expect(await streakOf(p)).toMatchObject({
      current: 4,
      longest: 4,
      freezes_available: 0,
      frozen_on: ['2026-11-05'],
      last_active_on: '2026-11-06',
    });
    setClock('2026-11-07T12:00:00Z'); // Saturday: still alive, at risk
    expect(await streakOf(p)).toMatchObject({ current: 4, at_risk: true });
    setClock('2026-11-08T12:00:00Z'); // Sunday: Saturday broke it (no freeze left)
    expect(await streakOf(p)).toMatchObject({ current: 0, longest: 4, at_risk: false, frozen_on: ['2026-11-05'] });
    setClock('2026-11-09T12:00:00Z'); // Monday grants a freeze
    expect(await streakOf(p)).toMatchObject({ current: 0, freezes_available: 1 });
  });

  it('days are local across the end of summer time (Europe/Madrid, 2026-10-25)', async () => {
    setClock('2026-10-23T10:00:00Z');
    const p = await person('Europe/Madrid');
    const zone = 'Europe/Madrid';
    await lesson(p.id, atLocalTime('2026-10-24', '12:00', zone));
    setClock(atLocalTime('2026-10-25', '23:00', zone)); // the 25-hour day
    await lesson(p.id, atLocalTime('2026-10-25', '23:00', zone));
    // 00:30 on Monday in Madrid is still Sunday in UTC: it counts for Monday.
    const mondayEarly = atLocalTime('2026-10-26', '00:30', zone);
    expect(mondayEarly.toISOString()).toBe('2026-10-25T23:30:00.000Z');
    setClock(mondayEarly);
    await lesson(p.id, mondayEarly);
    setClock(atLocalTime('2026-10-27', '12:00', zone));
    await lesson(p.id, t.clock.now());
    expect(await streakOf(p)).toMatchObject({ current: 4, frozen_on: [], time_zone: zone, today_active: true });
    const s = await p.agent();
    const cal = (await s.agent.get('/api/v1/me/activity?from=2026-10-20&to=2026-10-31').expect(200)).body;
    expect(cal.days.map((d: { date: string }) => d.date)).toEqual([
      '2026-10-24',
      '2026-10-25',
      '2026-10-26',
      '2026-10-27',
    ]);
    expect(cal).toMatchObject({ time_zone: zone, from: '2026-10-20', to: '2026-10-31' });
  });

  it('a change of zone moves "today" but never breaks or double-counts the run', async () => {
    setClock('2026-12-07T12:00:00Z'); // Monday
    const p = await person('UTC');
    for (const day of ['07', '08', '09']) {
      setClock(`2026-12-${day}T12:00:00Z`);
      await lesson(p.id, t.clock.now());
    }
    // Wednesday 20:00 UTC is Thursday 10:00 in Kiritimati (UTC+14).
    setClock('2026-12-09T20:00:00Z');
    let s = await p.agent();
    await s.agent.patch('/api/v1/me/profile').send({ time_zone: 'Pacific/Kiritimati' }).expect(200);
    expect(await streakOf(p)).toMatchObject({ current: 3, today_active: false, at_risk: true, frozen_on: [] });
    await lesson(p.id, t.clock.now()); // counts for Thursday, local
    expect(await streakOf(p)).toMatchObject({ current: 4, today_active: true, last_active_on: '2026-12-10' });
    // Thursday 06:00 UTC: back to Wednesday 22:00 in Los Angeles. Thursday is "tomorrow" there: the run holds.
    setClock('2026-12-10T06:00:00Z');
    s = await p.agent();
    await s.agent.patch('/api/v1/me/profile').send({ time_zone: 'America/Los_Angeles' }).expect(200);
    const back = await streakOf(p);
    expect(back.current).toBeGreaterThanOrEqual(3);
    expect(back.frozen_on).toEqual([]);
    // Once Thursday comes in Los Angeles, the 4 days are one run again.
    setClock('2026-12-10T20:00:00Z');
    expect(await streakOf(p)).toMatchObject({ current: 4, longest: 4, today_active: true, frozen_on: [] });
  });

  it('reaching 7 days publishes streak.milestone and awards streak_7 in the organization of the fact', async () => {
    setClock('2027-01-04T09:00:00Z');
    const p = await person('UTC');
    for (let i = 0; i < 7; i++) {
      setClock(new Date(Date.parse('2027-01-04T09:00:00Z') + i * 86_400_000));
      await lesson(p.id, t.clock.now());
      await lesson(p.id, t.clock.now()); // a second activity of the day changes nothing
    }
    expect(await streakOf(p)).toMatchObject({ current: 7 });
    const events = await t.db.query(
      `SELECT organization_id, payload FROM domain_events WHERE name = 'streak.milestone' AND payload->>'user_id' = $1`,
      [p.id],
    );
    expect(events).toEqual([{ organization_id: org, payload: { user_id: p.id, days: 7 } }]);
    const badges = await t.db.query(
      `SELECT organization_id, code, kind FROM badge_awards WHERE user_id = $1 AND code LIKE 'streak%'`,
      [p.id],
    );
    expect(badges).toEqual([{ organization_id: org, code: 'streak_7', kind: 'system' }]);
  });

  it('the activity calendar: ranges, 422s, per-organization counters, a token sees its organization', async () => {
    setClock('2027-02-01T10:00:00Z');
    const p = await person('UTC');
    await addMember(t, orgB, p.id, 'student');
    await lesson(p.id, t.clock.now());
    await lesson(p.id, t.clock.now(), orgB);
    await publish(
      t,
      'flashcard.reviewed',
      { user_id: p.id, review_id: randomUUID(), card_id: randomUUID(), deck_id: randomUUID(), grade: 3 },
      orgB,
      { occurredAt: t.clock.now() },
    );
    const s = await p.agent();
    const all = (await s.agent.get('/api/v1/me/activity').expect(200)).body;
    expect(all).toMatchObject({ time_zone: 'UTC', from: '2026-02-02', to: '2027-02-01' });
    expect(all.days).toEqual([
      {
        date: '2027-02-01',
        active: true,
        frozen: false,
        xp: 21,
        lessons_completed: 2,
        quiz_submissions: 0,
        reviews: 1,
        exams_submitted: 0,
        games_finished: 0,
        duels_finished: 0,
      },
    ]);
    const token = await personalToken(t, s, org, 'read');
    const mine = (await bearer(t, token).get('/api/v1/me/activity').expect(200)).body;
    expect(mine.days).toEqual([expect.objectContaining({ xp: 10, lessons_completed: 1, reviews: 0 })]);
    await s.agent.get('/api/v1/me/activity?from=2026-01-01&to=2027-01-01').expect(200); // 366 days
    await s.agent.get('/api/v1/me/activity?from=2025-12-31&to=2027-01-01').expect(422); // 367
    await s.agent.get('/api/v1/me/activity?from=2027-01-02&to=2027-01-01').expect(422);
    await s.agent.get('/api/v1/me/activity?from=2027-02-30').expect(422);
    await s.agent.get('/api/v1/me/activity?to=yesterday').expect(422);
  });

  it('goals: set, partial update, null clears, limits at and one past, progress in the person’s zone', async () => {
    setClock('2027-03-01T10:00:00Z'); // Monday
    const p = await person('UTC');
    const s = await p.agent();
    expect((await s.agent.get('/api/v1/me/goals').expect(200)).body).toEqual({
      daily_xp: null,
      weekly_lessons: null,
      today: { date: '2027-03-01', xp: 0, met: false },
      this_week: { week: '2027-W09', lessons: 0, met: false },
    });
    for (const bad of [
      { daily_xp: 9 },
      { daily_xp: 1001 },
      { weekly_lessons: 0 },
      { weekly_lessons: 51 },
      { daily_xp: 1.5 },
    ])
      await s.agent.put('/api/v1/me/goals').send(bad).expect(422);
    await s.agent.put('/api/v1/me/goals').send({ daily_xp: 10, weekly_lessons: 50 }).expect(200);
    await s.agent.put('/api/v1/me/goals').send({ daily_xp: 1000 }).expect(200);
    let goals = (await s.agent.put('/api/v1/me/goals').send({ weekly_lessons: 1 }).expect(200)).body;
    expect(goals).toMatchObject({ daily_xp: 1000, weekly_lessons: 1 });
    await s.agent.put('/api/v1/me/goals').send({ daily_xp: 10 }).expect(200);
    await lesson(p.id, t.clock.now());
    goals = (await s.agent.get('/api/v1/me/goals').expect(200)).body;
    expect(goals).toMatchObject({
      daily_xp: 10,
      today: { xp: 10, met: true },
      this_week: { lessons: 1, met: true },
    });
    goals = (await s.agent.put('/api/v1/me/goals').send({ daily_xp: null }).expect(200)).body;
    expect(goals).toMatchObject({ daily_xp: null, weekly_lessons: 1, today: { met: false } });
  });

  it('the engagement digest: streak reminders and the weekly summary', async () => {
    setClock('2027-04-05T12:00:00Z'); // Monday
    const active = await person('UTC');
    const idle = await person('UTC');
    const fresh = await person('UTC');
    await lesson(active.id, t.clock.now());
    await lesson(idle.id, t.clock.now());
    setClock('2027-04-06T19:00:00Z');
    await lesson(active.id, t.clock.now());
    const digest = t.app.get(EngagementDigest);
    expect((await digest.needingStreakReminder([active.id, idle.id, fresh.id], t.clock.now())).sort()).toEqual([
      idle.id,
    ]);
    setClock('2027-04-12T08:00:00Z'); // next Monday
    const summary = await digest.weeklySummary(active.id, '2027-W14');
    expect(summary).toEqual({
      user_id: active.id,
      week: '2027-W14',
      streak_current: 0,
      organizations: [{ organization_id: org, xp: 20, lessons_completed: 2, reviews: 0, courses_in_progress: 0 }],
    });
    expect(await digest.weeklySummary(fresh.id, '2027-W14')).toBeNull();
  });
});
