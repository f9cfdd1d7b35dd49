import { randomUUID } from 'node:crypto';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { ChallengesService } from '@/modules/practice/gamification';
import type { SignedIn } from '../../support/auth';
import { makeCourse } from '../../cross-tenant/learning.routes';
import { lessonCompleted, publish, quietMember, settle } from '../../support/engagement';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Challenges (extensions-v2 5.6, 5.7): who creates and sees, validation, limits, life cycle, standings, podium. */
describe('gamification: challenges', () => {
  let t: TestApp;
  let owner: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let student: SignedIn;
  let outsider: SignedIn;
  let org: string;
  let orgB: string;
  let cohort: string;
  let cohortB: string;
  let courseId: string;
  let courseLessons: string[];
  let hiddenCourse: string;

  const url = (path = '', o = org) => `/api/v1/organizations/${o}/challenges${path}`;
  const iso = (ms: number) => new Date(ms).toISOString();
  const body = (over: Record<string, unknown> = {}) => ({
    title: 'Most XP this week',
    description_md: 'Learn **more**',
    metric: 'xp',
    starts_at: iso(t.clock.nowMs() + HOUR),
    ends_at: iso(t.clock.nowMs() + 7 * DAY),
    ...over,
  });
  const refreshAll = async () => {
    for (const s of [owner, teacher, otherTeacher, student, outsider])
      await s.agent.post('/api/v1/auth/refresh').expect(200);
  };
  const audits = (id: string) =>
    t.db.query(`SELECT action, actor_id, metadata FROM audit_log WHERE target_id = $1 ORDER BY created_at`, [id]);

  beforeAll(async () => {
    t = await createTestApp({ clockOffsetMs: Date.parse('2026-11-23T10:00:00Z') - Date.now() });
    owner = await adult(t);
    org = await createOrganization(t, owner);
    orgB = await createOrganization(t, owner, 'Other');
    [teacher, otherTeacher, student, outsider] = [await adult(t), await adult(t), await adult(t), await adult(t)];
    await addMember(t, org, teacher.user.id, 'teacher');
    await addMember(t, org, otherTeacher.user.id, 'teacher');
    await addMember(t, org, student.user.id, 'student');
    await addMember(t, org, outsider.user.id, 'student');
    const cohorts = t.app.get(CohortsService);
    cohort = (await cohorts.create(org, { name: 'C1' }, owner.user.id)).id;
    cohortB = (await cohorts.create(orgB, { name: 'CB' }, owner.user.id)).id;
    await cohorts.addMember(org, cohort, teacher.user.id, 'teacher');
    await cohorts.addMember(org, cohort, student.user.id, 'student');
    const course = await makeCourse(t, owner.user.id, {
      title: 'Counted',
      lessons: [{ title: 'L1' }, { title: 'L2' }],
    });
    courseId = course.id;
    courseLessons = course.lessons.map((l) => l.id);
    hiddenCourse = (await makeCourse(t, owner.user.id, { title: 'Draft', publish: false })).id;
  });
  afterAll(() => t.close());

  it('owners create organization-wide challenges; the record; audit challenge.created', async () => {
    const res = await owner.agent.post(url()).send(body()).expect(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'cohort_id',
        'course_id',
        'created_by',
        'description_md',
        'ends_at',
        'id',
        'joined',
        'metric',
        'my',
        'participants_count',
        'rewards',
        'starts_at',
        'status',
        'title',
        'top',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      title: 'Most XP this week',
      status: 'upcoming',
      cohort_id: null,
      course_id: null,
      participants_count: 0,
      joined: false,
      my: null,
      rewards: [100, 60, 30],
      top: [],
      created_by: { user_id: owner.user.id, anonymous: false },
    });
    expect(await audits(res.body.id)).toEqual([
      { action: 'challenge.created', actor_id: owner.user.id, metadata: { cohort_id: null } },
    ]);
  });

  it('teachers only for a cohort they teach; students never; another organization’s cohort is 404', async () => {
    await teacher.agent.post(url()).send(body()).expect(403);
    await otherTeacher.agent
      .post(url())
      .send(body({ cohort_id: cohort }))
      .expect(403);
    await student.agent
      .post(url())
      .send(body({ cohort_id: cohort }))
      .expect(403);
    const made = await teacher.agent
      .post(url())
      .send(body({ cohort_id: cohort }))
      .expect(201);
    expect(made.body.cohort_id).toBe(cohort);
    await owner.agent
      .post(url())
      .send(body({ cohort_id: cohortB }))
      .expect(404);
    // Visibility of a cohort challenge.
    await student.agent.get(url(`/${made.body.id}`)).expect(200);
    await outsider.agent.get(url(`/${made.body.id}`)).expect(404);
    await otherTeacher.agent.get(url(`/${made.body.id}`)).expect(404);
    await owner.agent.get(url(`/${made.body.id}`)).expect(200);
    const outsiders = (await outsider.agent.get(url()).expect(200)).body.items.map((c: { id: string }) => c.id);
    expect(outsiders).not.toContain(made.body.id);
    await owner.agent.get(url('/not-a-uuid')).expect(404);
    await owner.agent.get(url(`/${made.body.id}`, orgB)).expect(404);
  });

  it('validation: lengths, metric, course rules, times at and one past their limits', async () => {
    const now = t.clock.nowMs();
    const bad: Record<string, unknown>[] = [
      { title: '' },
      { title: 'x'.repeat(121) },
      { description_md: 'x'.repeat(2001) },
      { metric: 'karma' },
      { course_id: courseId }, // only with lessons_completed
      { metric: 'lessons_completed', course_id: hiddenCourse },
      { metric: 'lessons_completed', course_id: 'nope' },
      { starts_at: iso(now - 60_000) },
      { starts_at: iso(now + HOUR), ends_at: iso(now + HOUR) },
      { starts_at: iso(now + HOUR), ends_at: iso(now + HOUR + 90 * DAY + 1) },
      { starts_at: 'tomorrow' },
    ];
    for (const over of bad) {
      const res = await owner.agent.post(url()).send(body(over));
      expect([JSON.stringify(over).slice(0, 60), res.status]).toEqual([JSON.stringify(over).slice(0, 60), 422]);
    }
    await owner.agent
      .post(url())
      .send(body({ title: 'x'.repeat(120), description_md: 'x'.repeat(2000) }))
      .expect(201);
    await owner.agent
      .post(url())
      .send(body({ starts_at: iso(now + HOUR), ends_at: iso(now + HOUR + 90 * DAY) }))
      .expect(201);
    await owner.agent
      .post(url())
      .send(body({ metric: 'lessons_completed', course_id: courseId }))
      .expect(201);
  });

  it('at most 20 upcoming or active challenges per organization', async () => {
    const o = await createOrganization(t, owner, 'Limits');
    for (let i = 0; i < 20; i++)
      await owner.agent
        .post(url('', o))
        .send(body({ title: `C${i}` }))
        .expect(201);
    const res = await owner.agent.post(url('', o)).send(body()).expect(409);
    expect(res.body.error.code).toBe('challenge_limit_reached');
  });

  it('edit and delete: who, and what changes when', async () => {
    const made = (
      await teacher.agent
        .post(url())
        .send(body({ cohort_id: cohort }))
        .expect(201)
    ).body;
    await otherTeacher.agent
      .patch(url(`/${made.id}`))
      .send({ title: 'x' })
      .expect(404); // does not see it
    await student.agent
      .patch(url(`/${made.id}`))
      .send({ title: 'x' })
      .expect(403);
    await teacher.agent
      .patch(url(`/${made.id}`))
      .send({ title: 'Renamed', metric: 'duels_won' })
      .expect(200);
    await owner.agent
      .patch(url(`/${made.id}`))
      .send({ cohort_id: cohortB })
      .expect(404);
    expect(await audits(made.id)).toEqual([
      expect.objectContaining({ action: 'challenge.created' }),
      expect.objectContaining({ action: 'challenge.updated', actor_id: teacher.user.id }),
    ]);
    // Once started.
    t.clock.advance(2 * HOUR);
    await refreshAll();
    expect((await teacher.agent.get(url(`/${made.id}`)).expect(200)).body.status).toBe('active');
    const started = await teacher.agent
      .patch(url(`/${made.id}`))
      .send({ metric: 'xp' })
      .expect(409);
    expect(started.body.error.code).toBe('challenge_started');
    await teacher.agent
      .patch(url(`/${made.id}`))
      .send({ starts_at: iso(t.clock.nowMs() + HOUR) })
      .expect(409);
    await teacher.agent
      .patch(url(`/${made.id}`))
      .send({ ends_at: iso(t.clock.nowMs() - 1000) })
      .expect(422);
    await teacher.agent
      .patch(url(`/${made.id}`))
      .send({ title: 'Still fine', ends_at: iso(t.clock.nowMs() + DAY) })
      .expect(200);
    const del = await teacher.agent.delete(url(`/${made.id}`)).expect(409);
    expect(del.body.error.code).toBe('challenge_started');
    // An upcoming one can go.
    const later = (await owner.agent.post(url()).send(body()).expect(201)).body;
    await student.agent.delete(url(`/${later.id}`)).expect(403);
    await owner.agent.delete(url(`/${later.id}`)).expect(204);
    await owner.agent.get(url(`/${later.id}`)).expect(404);
    await owner.agent.delete(url(`/${later.id}`)).expect(404);
    expect((await audits(later.id)).map((a: { action: string }) => a.action)).toEqual([
      'challenge.created',
      'challenge.deleted',
    ]);
  });

  it('join (201, then 200), leave (204, then 404); standings with zeros and ties; podium at the end, once', async () => {
    const start = t.clock.nowMs() + HOUR;
    const made = (
      await owner.agent
        .post(url())
        .send(body({ title: 'Sprint', starts_at: iso(start), ends_at: iso(start + DAY) }))
        .expect(201)
    ).body;
    const a = await quietMember(t, org);
    const b = await quietMember(t, org);
    const svc = t.app.get(ChallengesService);
    expect((await student.agent.post(url(`/${made.id}/join`)).expect(201)).body).toMatchObject({
      joined: true,
      participants_count: 1,
      my: { rank: 1, value: 0 },
    });
    await student.agent.post(url(`/${made.id}/join`)).expect(200);
    await outsider.agent.post(url(`/${made.id}/join`)).expect(201);
    await outsider.agent.post(url(`/${made.id}/leave`)).expect(204);
    await outsider.agent.post(url(`/${made.id}/leave`)).expect(404);
    for (const who of [a, b])
      await t.db.query(
        `INSERT INTO challenge_participants (challenge_id, organization_id, user_id, joined_at) VALUES ($1, $2, $3, now())`,
        [made.id, org, who],
      );
    // XP before the start does not count.
    await publish(t, 'lesson.completed', lessonCompleted(a), org, { occurredAt: t.clock.now() });
    t.clock.advance(2 * HOUR);
    for (const who of [a, a, b, b]) await publish(t, 'lesson.completed', lessonCompleted(who), org, { settle: false });
    await settle(t);
    await refreshAll();
    const live = (await owner.agent.get(url(`/${made.id}/standings`)).expect(200)).body;
    const [first, second] = [a, b].sort();
    expect(
      live.items.map((s: { rank: number; value: number; person: { user_id: string } }) => [
        s.rank,
        s.person.user_id,
        s.value,
      ]),
    ).toEqual([
      [1, first, 20],
      [1, second, 20],
      [3, student.user.id, 0],
    ]);
    expect(live.total).toBe(3);
    // The student sees the quiet members anonymous and themself.
    const theirs = (await student.agent.get(url(`/${made.id}`)).expect(200)).body;
    expect(theirs.top.map((s: { person: { anonymous: boolean } }) => s.person.anonymous)).toEqual([true, true, false]);
    expect(theirs.my).toEqual({ rank: 3, value: 0 });
    // The end: frozen, podium XP to ranks 1 (tied) with values above 0, badge, event; once.
    t.clock.advance(DAY);
    await refreshAll();
    const done = (await owner.agent.get(url(`/${made.id}`)).expect(200)).body;
    expect(done.status).toBe('finished');
    await svc.finish(org, made.id);
    await svc.finishDue();
    await settle(t);
    const podium = await t.db.query(
      `SELECT user_id, amount FROM xp_ledger WHERE source = 'challenge' AND source_id = $1 ORDER BY user_id`,
      [made.id],
    );
    expect(podium).toEqual([
      { user_id: first, amount: 100 },
      { user_id: second, amount: 100 },
    ]);
    const badges = await t.db.query(
      `SELECT user_id FROM badge_awards WHERE code = 'challenge_podium' ORDER BY user_id`,
    );
    expect(badges.map((r: { user_id: string }) => r.user_id)).toEqual([first, second]);
    const events = await t.db.query(
      `SELECT payload FROM domain_events WHERE name = 'challenge.finished' AND payload->>'challenge_id' = $1`,
      [made.id],
    );
    expect(events).toEqual([{ payload: { challenge_id: made.id } }]);
    // Frozen: later XP does not move it, and the podium reward is not counted as challenge XP.
    await publish(t, 'lesson.completed', lessonCompleted(student.user.id), org);
    const frozen = (await owner.agent.get(url(`/${made.id}/standings`)).expect(200)).body;
    expect(frozen.items.map((s: { value: number }) => s.value)).toEqual([20, 20, 0]);
    const joinLate = await student.agent.post(url(`/${made.id}/join`)).expect(409);
    expect(joinLate.body.error.code).toBe('challenge_finished');
    await student.agent.post(url(`/${made.id}/leave`)).expect(409);
    await owner.agent
      .patch(url(`/${made.id}`))
      .send({ ends_at: iso(t.clock.nowMs() + DAY) })
      .expect(409);
    await owner.agent
      .patch(url(`/${made.id}`))
      .send({ title: 'Sprint (done)' })
      .expect(200);
    expect(
      (await owner.agent.get(url('?status=finished')).expect(200)).body.items.map((c: { id: string }) => c.id),
    ).toContain(made.id);
    await owner.agent.get(url('?status=over')).expect(422);
  });

  it('metrics: every review counts (the XP cap does not), lessons of one course, duels won; the schedule finishes', async () => {
    const start = t.clock.nowMs() + HOUR;
    const mk = async (over: Record<string, unknown>) =>
      (
        await owner.agent
          .post(url())
          .send(body({ starts_at: iso(start), ends_at: iso(start + DAY), ...over }))
          .expect(201)
      ).body.id as string;
    const reviews = await mk({ metric: 'flashcard_reviews' });
    const lessons = await mk({ metric: 'lessons_completed', course_id: courseId });
    const duels = await mk({ metric: 'duels_won' });
    const p = await quietMember(t, org);
    const q = await quietMember(t, org);
    for (const id of [reviews, lessons, duels])
      for (const who of [p, q])
        await t.db.query(
          `INSERT INTO challenge_participants (challenge_id, organization_id, user_id, joined_at) VALUES ($1, $2, $3, now())`,
          [id, org, who],
        );
    t.clock.advance(2 * HOUR);
    for (let i = 0; i < 55; i++)
      await publish(
        t,
        'flashcard.reviewed',
        { user_id: p, review_id: randomUUID(), card_id: randomUUID(), deck_id: randomUUID(), grade: 5 },
        org,
        { settle: false },
      );
    await publish(t, 'lesson.completed', lessonCompleted(q, courseLessons[0], courseId), org, { settle: false });
    await publish(t, 'lesson.completed', lessonCompleted(q), org, { settle: false }); // another course
    await publish(
      t,
      'duel.finished',
      { duel_id: randomUUID(), challenger_id: p, opponent_id: q, winner_id: q, reason: 'completed', rounds_started: 5 },
      org,
      { settle: false },
    );
    await settle(t);
    await refreshAll();
    const values = async (id: string) =>
      (await owner.agent.get(url(`/${id}/standings`)).expect(200)).body.items.map((s: { value: number }) => s.value);
    expect(await values(reviews)).toEqual([55, 0]);
    expect(await values(lessons)).toEqual([1, 0]);
    expect(await values(duels)).toEqual([1, 0]);
    t.clock.advance(DAY);
    await t.app.get(ChallengesService).finishDue();
    const finished = await t.db.query(`SELECT id FROM challenges WHERE id = ANY($1) AND finished_at IS NOT NULL`, [
      [reviews, lessons, duels],
    ]);
    expect(finished).toHaveLength(3);
    expect(
      await t.db.query(`SELECT count(*)::int AS n FROM xp_ledger WHERE source = 'challenge' AND user_id = ANY($1)`, [
        [p, q],
      ]),
    ).toEqual([{ n: 3 }]);
  });

  it('a delayed job per end finishes the challenge at ends_at (in its own organization only)', async () => {
    await refreshAll();
    const start = t.clock.nowMs() + HOUR;
    const made = (
      await owner.agent
        .post(url())
        .send(body({ title: 'Job', starts_at: iso(start), ends_at: iso(start + DAY) }))
        .expect(201)
    ).body;
    await owner.agent
      .patch(url(`/${made.id}`))
      .send({ ends_at: iso(start + 2 * DAY) })
      .expect(200);
    const jobs = await t.db.query(
      `SELECT name, organization_id, run_after FROM jobs WHERE dedupe_key LIKE $1 ORDER BY run_after`,
      [`gamification.finish_challenge:${made.id}:%`],
    );
    expect(
      jobs.map((j: { name: string; organization_id: string; run_after: Date }) => [
        j.name,
        j.organization_id,
        new Date(j.run_after).toISOString(),
      ]),
    ).toEqual([
      ['gamification.finish_challenge', org, iso(start + DAY)],
      ['gamification.finish_challenge', org, iso(start + 2 * DAY)],
    ]);
    const svc = t.app.get(ChallengesService);
    t.clock.advance(HOUR + DAY + 60_000); // the first end: nothing due any more
    await svc.finishJob({ challenge_id: made.id }, { jobId: 'j1', attempt: 1, organizationId: org });
    const finished = () => t.db.query(`SELECT finished_at FROM challenges WHERE id = $1`, [made.id]);
    expect((await finished())[0].finished_at).toBeNull();
    t.clock.advance(DAY);
    await svc.finishJob({ challenge_id: made.id }, { jobId: 'j2', attempt: 1, organizationId: orgB });
    expect((await finished())[0].finished_at).toBeNull();
    await svc.finishJob({ challenge_id: made.id }, { jobId: 'j3', attempt: 1, organizationId: org });
    expect((await finished())[0].finished_at).not.toBeNull();
  });
});
