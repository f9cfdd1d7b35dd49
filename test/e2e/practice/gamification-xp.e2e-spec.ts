import { randomUUID } from 'node:crypto';
import { EventDispatcher } from '@/core/events/event-dispatcher';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { signIn, type SignedIn } from '../../support/auth';
import { lessonCompleted, publish, quietMember, settle } from '../../support/engagement';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The XP ledger (extensions-v2 3.2): amounts, source keys (a redelivered event or a second event about the same
 * fact awards nothing), daily caps in the person's zone, membership, levels and `level.reached`, history labels.
 */
describe('gamification: XP ledger', () => {
  let t: TestApp;
  let owner: SignedIn;
  let student: SignedIn;
  let org: string;
  let orgB: string;

  const xp = async (s: SignedIn = student, o = org) =>
    (await s.agent.get(`/api/v1/organizations/${o}/xp`).expect(200)).body;
  const ledger = (userId: string, o = org) =>
    t.db.query<{ source: string; source_id: string; amount: number; local_date: string }[]>(
      `SELECT source, source_id, amount, to_char(local_date, 'YYYY-MM-DD') AS local_date FROM xp_ledger
       WHERE organization_id = $1 AND user_id = $2 ORDER BY created_at, source_id`,
      [o, userId],
    );
  const events = (name: string, userId: string) =>
    t.db.query<{ organization_id: string; payload: Record<string, unknown> }[]>(
      `SELECT organization_id, payload FROM domain_events WHERE name = $1 AND payload->>'user_id' = $2 ORDER BY occurred_at, created_at`,
      [name, userId],
    );

  beforeAll(async () => {
    // Monday 2026-11-23 10:00 UTC, whatever the real date.
    t = await createTestApp({ clockOffsetMs: Date.parse('2026-11-23T10:00:00Z') - Date.now() });
    owner = await adult(t);
    org = await createOrganization(t, owner);
    const ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Other');
    student = await signIn(t);
    await student.agent
      .put('/api/v1/me/onboarding')
      .send({ name: 'Student', locale: 'es', adult_confirmed: true })
      .expect(200);
    await addMember(t, org, student.user.id, 'student');
  });
  afterAll(() => t.close());

  it('a new member has 0 XP at level 1', async () => {
    expect(await xp()).toEqual({
      xp: 0,
      level: 1,
      level_floor_xp: 0,
      next_level_xp: 100,
      progress_percent: 0,
      today_xp: 0,
      week_xp: 0,
      month_xp: 0,
      week_rank: null,
    });
  });

  it('a lesson is worth 10 once: a redelivered event and a second event about it award nothing', async () => {
    const lesson = randomUUID();
    const eventId = await publish(t, 'lesson.completed', lessonCompleted(student.user.id, lesson), org);
    expect((await xp()).xp).toBe(10);
    // Redelivery: the delivery is made pending again (as after a lost acknowledgement).
    await t.db.query(
      `UPDATE domain_event_deliveries SET status = 'pending', run_after = $2, done_at = NULL
       WHERE event_id = $1 AND subscriber = 'gamification.engagement'`,
      [eventId, t.clock.now()],
    );
    await t.app.get(EventDispatcher).drain();
    await settle(t);
    await publish(t, 'lesson.completed', lessonCompleted(student.user.id, lesson), org);
    const body = await xp();
    expect(body).toMatchObject({ xp: 10, today_xp: 10, week_xp: 10, month_xp: 10, week_rank: 1 });
    expect(await ledger(student.user.id)).toEqual([
      { source: 'lesson', source_id: lesson, amount: 10, local_date: '2026-11-23' },
    ]);
  });

  it('a quiz pass is worth 20 the first time; a failed attempt nothing', async () => {
    const lesson = randomUUID();
    const quiz = (passed: boolean, score: number) => ({
      user_id: student.user.id,
      course_id: randomUUID(),
      lesson_id: lesson,
      quiz_id: randomUUID(),
      submission_id: randomUUID(),
      score,
      passed,
      first_pass: passed,
    });
    await publish(t, 'quiz.submitted', quiz(false, 40), org);
    expect((await xp()).xp).toBe(10);
    await publish(t, 'quiz.submitted', quiz(true, 80), org);
    await publish(t, 'quiz.submitted', quiz(true, 100), org);
    expect((await xp()).xp).toBe(30);
  });

  it('course 100, program 200, passed capstone 50 (a failed one nothing): level 2 publishes level.reached once', async () => {
    const path = randomUUID();
    await publish(
      t,
      'course.completed',
      { user_id: student.user.id, course_id: randomUUID(), completed_at: t.clock.now().toISOString() },
      org,
    );
    expect(await xp()).toMatchObject({
      xp: 130,
      level: 2,
      level_floor_xp: 100,
      next_level_xp: 300,
      progress_percent: 15,
    });
    expect((await events('level.reached', student.user.id)).map((e) => e.payload.level)).toEqual([2]);
    await publish(
      t,
      'capstone.graded',
      { submission_id: randomUUID(), user_id: student.user.id, path_id: path, status: 'failed' },
      org,
    );
    await publish(
      t,
      'capstone.graded',
      { submission_id: randomUUID(), user_id: student.user.id, path_id: path, status: 'passed' },
      org,
    );
    await publish(
      t,
      'capstone.graded',
      { submission_id: randomUUID(), user_id: student.user.id, path_id: path, status: 'passed' },
      org,
    );
    await publish(
      t,
      'program.completed',
      { user_id: student.user.id, path_id: path, completed_at: t.clock.now().toISOString() },
      org,
    );
    expect(await xp()).toMatchObject({ xp: 380, level: 3 });
    expect((await events('level.reached', student.user.id)).map((e) => e.payload.level)).toEqual([2, 3]);
    expect((await events('level.reached', student.user.id))[0].organization_id).toBe(org);
  });

  it('exam: a passed unflagged submission is worth 50 once; a flagged one waits for an accepting review', async () => {
    const exam = randomUUID();
    const other = randomUUID();
    const submitted = (examId: string, passed: boolean, flagged: boolean) => ({
      session_id: randomUUID(),
      exam_id: examId,
      course_id: randomUUID(),
      user_id: student.user.id,
      score: passed ? 90 : 20,
      passed,
      flagged,
      submitted_by: 'learner' as const,
    });
    await publish(t, 'exam.submitted', submitted(exam, false, false), org);
    await publish(t, 'exam.submitted', submitted(exam, true, false), org);
    await publish(t, 'exam.submitted', submitted(exam, true, false), org);
    expect((await xp()).xp).toBe(430);
    await publish(t, 'exam.submitted', submitted(other, true, true), org);
    expect((await xp()).xp).toBe(430);
    const review = (decision: 'accept' | 'void') => ({
      session_id: randomUUID(),
      exam_id: other,
      course_id: randomUUID(),
      user_id: student.user.id,
      decision,
      allow_retake: false,
      score: 90,
      passed: decision === 'accept',
    });
    await publish(t, 'exam.reviewed', review('void'), org);
    expect((await xp()).xp).toBe(430);
    await publish(t, 'exam.reviewed', review('accept'), org);
    expect((await xp()).xp).toBe(480);
  });

  it('reviews: 1 each, at most 50 per local day and organization (the remainder, then nothing)', async () => {
    const who = await quietMember(t, org);
    const review = () => ({
      user_id: who,
      review_id: randomUUID(),
      card_id: randomUUID(),
      deck_id: randomUUID(),
      grade: 4,
    });
    for (let i = 0; i < 49; i++) await publish(t, 'flashcard.reviewed', review(), org, { settle: false });
    await settle(t);
    expect((await ledger(who)).length).toBe(49);
    // Two more in one batch: one fits, one is past the cap.
    await publish(t, 'flashcard.reviewed', review(), org, { settle: false });
    await publish(t, 'flashcard.reviewed', review(), org, { settle: false });
    await settle(t);
    const rows = await ledger(who);
    expect(rows.reduce((s, r) => s + r.amount, 0)).toBe(50);
    // Every review still counts as activity.
    const days = await t.db.query(`SELECT reviews FROM activity_days WHERE user_id = $1`, [who]);
    expect(days).toEqual([{ reviews: 51 }]);
    // The next local day has its own cap.
    await publish(t, 'flashcard.reviewed', review(), org, { occurredAt: new Date('2026-11-24T00:30:00Z') });
    expect((await ledger(who)).filter((r) => r.local_date === '2026-11-24').length).toBe(1);
  });

  it('the daily cap is counted on the person’s local date of the fact', async () => {
    const who = await quietMember(t, org, 'student', { timeZone: 'America/New_York' });
    const review = () => ({
      user_id: who,
      review_id: randomUUID(),
      card_id: randomUUID(),
      deck_id: randomUUID(),
      grade: 4,
    });
    // 03:00 UTC on the 24th is still the 23rd in New York.
    await publish(t, 'flashcard.reviewed', review(), org, { occurredAt: new Date('2026-11-24T03:00:00Z') });
    await publish(t, 'flashcard.reviewed', review(), org, { occurredAt: new Date('2026-11-24T06:00:00Z') });
    expect((await ledger(who)).map((r) => r.local_date).sort()).toEqual(['2026-11-23', '2026-11-24']);
  });

  it('games: min(30, floor(score / 10)), at most 100 a day from games; an abandoned game is worth nothing', async () => {
    const who = await quietMember(t, org);
    const game = (score: number, end: 'time_up' | 'abandoned' = 'time_up') => ({
      user_id: who,
      game_id: randomUUID(),
      mode: 'speed' as const,
      score,
      end_reason: end,
    });
    await publish(t, 'game.finished', game(999, 'abandoned'), org);
    await publish(t, 'game.finished', game(9), org);
    expect(await ledger(who)).toEqual([]);
    await publish(t, 'game.finished', game(125), org);
    expect((await ledger(who)).map((r) => r.amount)).toEqual([12]);
    for (let i = 0; i < 4; i++) await publish(t, 'game.finished', game(5000), org);
    expect((await ledger(who)).map((r) => r.amount).sort((a, b) => a - b)).toEqual([12, 28, 30, 30]);
    const days = await t.db.query(`SELECT games_finished FROM activity_days WHERE user_id = $1`, [who]);
    expect(days).toEqual([{ games_finished: 6 }]);
  });

  it('duels: a win 15, a draw 5 to each, a loss nothing; both players are active', async () => {
    const a = await quietMember(t, org);
    const b = await quietMember(t, org);
    const duel = (winner: string | null) => ({
      duel_id: randomUUID(),
      challenger_id: a,
      opponent_id: b,
      winner_id: winner,
      reason: 'completed' as const,
      rounds_started: 5,
    });
    await publish(t, 'duel.finished', duel(a), org);
    await publish(t, 'duel.finished', duel(null), org);
    expect((await ledger(a)).map((r) => r.amount).sort()).toEqual([15, 5]);
    expect((await ledger(b)).map((r) => r.amount)).toEqual([5]);
    const days = await t.db.query(
      `SELECT user_id, duels_finished, duels_won, active FROM activity_days WHERE user_id = ANY($1) ORDER BY duels_won DESC`,
      [[a, b]],
    );
    expect(days).toEqual([
      { user_id: a, duels_finished: 2, duels_won: 1, active: true },
      { user_id: b, duels_finished: 2, duels_won: 0, active: true },
    ]);
  });

  it('duels (extensions-v3 6.3): a forfeit or disconnection before the second round awards nothing and counts no win', async () => {
    const a = await quietMember(t, org);
    const b = await quietMember(t, org);
    const duel = (reason: 'forfeit' | 'disconnect', rounds: number) => ({
      duel_id: randomUUID(),
      challenger_id: a,
      opponent_id: b,
      winner_id: a,
      reason,
      rounds_started: rounds,
    });
    await publish(t, 'duel.finished', duel('forfeit', 0), org);
    await publish(t, 'duel.finished', duel('forfeit', 1), org);
    await publish(t, 'duel.finished', duel('disconnect', 1), org);
    expect(await ledger(a)).toEqual([]);
    expect(await ledger(b)).toEqual([]);
    const [day] = await t.db.query(`SELECT duels_finished, duels_won FROM activity_days WHERE user_id = $1`, [a]);
    expect(day).toEqual({ duels_finished: 3, duels_won: 0 });
    // From the second round on, a forfeit is a win like any other.
    await publish(t, 'duel.finished', duel('forfeit', 2), org);
    await publish(t, 'duel.finished', duel('disconnect', 3), org);
    expect((await ledger(a)).map((r) => r.amount)).toEqual([15, 15]);
  });

  it('duels (extensions-v3 6.3): at most 150 XP a day per person and organization; the next day counts again', async () => {
    const a = await quietMember(t, org);
    const b = await quietMember(t, org);
    const win = () => ({
      duel_id: randomUUID(),
      challenger_id: a,
      opponent_id: b,
      winner_id: a,
      reason: 'completed' as const,
      rounds_started: 5,
    });
    for (let i = 0; i < 10; i++) await publish(t, 'duel.finished', win(), org);
    const total = async () => (await ledger(a)).reduce((sum, r) => sum + r.amount, 0);
    expect(await total()).toBe(150);
    await publish(t, 'duel.finished', win(), org);
    expect(await total()).toBe(150);
    await publish(t, 'duel.finished', win(), org, { occurredAt: new Date(t.clock.nowMs() + 24 * 3600_000) });
    expect(await total()).toBe(165);
  });

  it('a person who is not a member of the organization of the fact gets nothing there', async () => {
    await publish(t, 'lesson.completed', lessonCompleted(student.user.id), orgB);
    expect(await ledger(student.user.id, orgB)).toEqual([]);
    await student.agent.get(`/api/v1/organizations/${orgB}/xp`).expect(404);
  });

  it('a program completion announces its program badge (badge.awarded, kind program) when the badge exists', async () => {
    const who = await quietMember(t, org);
    const [path] = await t.db.query<{ id: string }[]>(
      `INSERT INTO learning_paths (slug, title, kind) VALUES ($1, 'Bench program', 'program') RETURNING id`,
      [`program-${randomUUID().slice(0, 8)}`],
    );
    await t.db.query(
      `INSERT INTO badge_awards (organization_id, user_id, path_id, name, icon, code, kind)
       VALUES ($1, $2, $3, 'Program badge', 'rocket', $4, 'program')`,
      [org, who, path.id, `program-${path.id}`],
    );
    await publish(
      t,
      'program.completed',
      { user_id: who, path_id: path.id, completed_at: t.clock.now().toISOString() },
      org,
    );
    await publish(
      t,
      'program.completed',
      { user_id: who, path_id: randomUUID(), completed_at: t.clock.now().toISOString() },
      org,
    );
    expect((await events('badge.awarded', who)).map((e) => e.payload)).toEqual([
      { user_id: who, code: `program-${path.id}`, kind: 'program' },
    ]);
  });

  it('the history: most recent first, localized labels, paged', async () => {
    const res = await student.agent.get(`/api/v1/organizations/${org}/xp/history?limit=3`).expect(200);
    expect(res.body.total).toBe(7);
    expect(res.body.items).toHaveLength(3);
    expect(Object.keys(res.body.items[0]).sort()).toEqual([
      'amount',
      'created_at',
      'id',
      'label',
      'source',
      'source_id',
    ]);
    const all = await student.agent.get(`/api/v1/organizations/${org}/xp/history?limit=50`).expect(200);
    expect(all.body.items.map((i: { source: string }) => i.source)).toEqual([
      'exam_pass',
      'exam_pass',
      'program',
      'capstone',
      'course',
      'quiz_pass',
      'lesson',
    ]);
    expect(all.body.items[0].created_at >= all.body.items[6].created_at).toBe(true);
    const sources = all.body.items.map((i: { source: string }) => i.source);
    expect(sources[sources.length - 1]).toBe('lesson');
    expect(all.body.items[sources.length - 1].label).toBe('Lección completada');
    expect(all.body.items.find((i: { source: string }) => i.source === 'program').label).toBe('Programa completado');
    await student.agent.get(`/api/v1/organizations/${org}/xp/history?limit=0`).expect(422);
    await student.agent.get(`/api/v1/organizations/${org}/xp/history?limit=201`).expect(422);
  });

  it('leaving the organization removes its XP; rejoining starts at 0', async () => {
    const who = await quietMember(t, org);
    await publish(t, 'lesson.completed', lessonCompleted(who), org);
    expect((await ledger(who)).length).toBe(1);
    await t.app.get(OrganizationsService).removeMember(org, who, null);
    await settle(t);
    expect(await ledger(who)).toEqual([]);
    await addMember(t, org, who, 'student');
    expect(
      await t.db.query(`SELECT xp FROM xp_totals WHERE organization_id = $1 AND user_id = $2`, [org, who]),
    ).toEqual([]);
  });
});
