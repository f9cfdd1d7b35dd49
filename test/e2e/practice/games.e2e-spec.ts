import { randomUUID } from 'node:crypto';
import type { QuizInputDto } from '@/modules/learning/editor';
import { GamesService } from '@/modules/practice/games';
import type { SignedIn } from '../../support/auth';
import { enroll, member } from '../../support/exams';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';

/** A quiz of `n` single-choice questions (option `right` correct). */
function quiz(n: number, prefix: string): QuizInputDto {
  return {
    passing_score: 50,
    questions: Array.from({ length: n }, (_, i) => ({
      prompt: `${prefix} ${i + 1}?`,
      kind: 'single' as const,
      explanation: `Because ${prefix} ${i + 1}.`,
      options: [
        { text: 'right', correct: true },
        { text: 'wrong', correct: false },
        { text: 'other', correct: false },
      ],
    })),
  };
}

interface Game {
  id: string;
  mode: string;
  status: string;
  score: number;
  lives: number | null;
  points: number | null;
  questions_answered: number;
  correct_answers: number;
  started_at: string;
  ends_at: string | null;
  finished_at: string | null;
  end_reason: string | null;
  xp_awarded: number;
  server_now: string;
  current_question: {
    id: string;
    number: number;
    prompt: string;
    options: { id: string; text: string }[];
    served_at: string;
    deadline_at: string;
  } | null;
}

/**
 * Single-player games (extensions-v2 section 7): survival, speed and risk with server-authoritative timing (the
 * Clock is frozen and moved; nothing sleeps), lives, wagers, scores, ends, abandonment, the leaderboard and
 * `game.finished`.
 */
describe('games', () => {
  let t: TestApp;
  let owner: SignedIn;
  let orgId: string;
  let small: MadeCourse; // 6 questions
  let big: MadeCourse; // 100 questions
  let tiny: MadeCourse; // 4 questions
  let player: SignedIn;
  const key = new Map<string, { right: string; wrong: string }>();

  const games = (): string => `/api/v1/organizations/${orgId}/games`;

  function remember(c: MadeCourse): void {
    for (const lesson of c.lessons) {
      for (const q of lesson.quiz?.questions ?? []) {
        key.set(q.id, {
          right: q.options.find((o) => o.correct)!.id,
          wrong: q.options.find((o) => !o.correct)!.id,
        });
      }
    }
  }

  function freezeAt(ms: number): void {
    jest.spyOn(t.clock, 'now').mockImplementation(() => new Date(ms));
  }
  function unfreeze(): void {
    const frozen = t.clock.nowMs();
    jest.restoreAllMocks();
    if (t.clock.nowMs() < frozen) t.clock.advance(frozen - t.clock.nowMs() + 1);
  }

  async function start(s: SignedIn, body: object): Promise<Game> {
    return (await s.agent.post(games()).send(body).expect(201)).body;
  }

  async function answer(
    s: SignedIn,
    game: Game,
    right: boolean,
    extra: object = {},
  ): Promise<{ correct: boolean; timed_out: boolean; points_delta: number; game: Game; correct_option_ids: string[] }> {
    const q = game.current_question!;
    const k = key.get(q.id)!;
    const res = await s.agent
      .post(`${games()}/${game.id}/answers`)
      .send({ question_id: q.id, option_ids: [right ? k.right : k.wrong], ...extra });
    if (res.status !== 200) throw new Error(`answer: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function finishedEvents(
    gameId: string,
  ): Promise<{ actor_id: string | null; payload: Record<string, unknown> }[]> {
    return t.db.query(
      `SELECT actor_id, payload FROM domain_events WHERE name = 'game.finished' AND payload->>'game_id' = $1`,
      [gameId],
    );
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgId = await createOrganization(t, owner, 'Games Org');
    small = await makeCourse(t, owner.user.id, {
      title: 'Small quiz course',
      lessons: [
        { title: 'A', quiz: quiz(3, 'A') },
        { title: 'B', quiz: quiz(3, 'B') },
      ],
    });
    big = await makeCourse(t, owner.user.id, {
      title: 'Big quiz course',
      lessons: [
        { title: 'C', quiz: quiz(50, 'C') },
        { title: 'D', quiz: quiz(50, 'D') },
      ],
    });
    tiny = await makeCourse(t, owner.user.id, {
      title: 'Tiny quiz course',
      lessons: [{ title: 'E', quiz: quiz(4, 'E') }],
    });
    for (const c of [small, big, tiny]) remember(c);
    player = await member(t, orgId);
    await enroll(player, orgId, small.id);
    await enroll(player, orgId, tiny.id);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  describe('starting', () => {
    it('survival: 3 lives, the first question served now with 20 s, options without answers', async () => {
      const game = await start(player, { mode: 'survival', course_id: small.id });
      expect(game).toMatchObject({
        mode: 'survival',
        status: 'in_progress',
        score: 0,
        lives: 3,
        points: null,
        ends_at: null,
        questions_answered: 0,
        correct_answers: 0,
        finished_at: null,
        end_reason: null,
        xp_awarded: 0,
      });
      const q = game.current_question!;
      expect(q.number).toBe(1);
      expect(Date.parse(q.deadline_at) - Date.parse(q.served_at)).toBe(20_000);
      expect(q.options.map((o) => o.text).sort()).toEqual(['other', 'right', 'wrong']);
      expect(Object.keys(q.options[0]).sort()).toEqual(['id', 'text']);
      expect(key.has(q.id)).toBe(true);
    });

    it('404 unknown course, 403 not_enrolled, 409 not_enough_questions (4 < 5), 422 bad input', async () => {
      await player.agent.post(games()).send({ mode: 'survival', course_id: randomUUID() }).expect(404);
      const notEnrolled = await player.agent.post(games()).send({ mode: 'survival', course_id: big.id }).expect(403);
      expect(notEnrolled.body.error.code).toBe('not_enrolled');
      const few = await player.agent.post(games()).send({ mode: 'risk', course_id: tiny.id }).expect(409);
      expect(few.body.error.code).toBe('not_enough_questions');
      for (const body of [
        {},
        { mode: 'chess' },
        { mode: 'speed', course_id: 'x' },
        { mode: 'speed', started_at: 'now' },
      ]) {
        await player.agent.post(games()).send(body).expect(422);
      }
      // Without course_id: every enrolled course here (6 + 4 questions).
      const all = await start(player, { mode: 'risk' });
      expect(all.points).toBe(100);
      const total = await t.db.query(`SELECT questions_total FROM games WHERE id = $1`, [all.id]);
      expect(total[0].questions_total).toBe(10);
    });

    it('a member with no enrolled course has no questions: 409 not_enough_questions', async () => {
      const nobody = await member(t, orgId);
      const res = await nobody.agent.post(games()).send({ mode: 'speed' }).expect(409);
      expect(res.body.error.code).toBe('not_enough_questions');
    });

    it('starting abandons the caller’s game in progress here', async () => {
      const first = await start(player, { mode: 'survival', course_id: small.id });
      const second = await start(player, { mode: 'speed', course_id: small.id });
      const old = await player.agent.get(`${games()}/${first.id}`).expect(200);
      expect(old.body).toMatchObject({
        status: 'abandoned',
        end_reason: 'abandoned',
        current_question: null,
        xp_awarded: 0,
      });
      expect((await player.agent.get(`${games()}/${second.id}`).expect(200)).body.status).toBe('in_progress');
    });
  });

  describe('survival', () => {
    it('+10 per right answer; a wrong answer costs a life; mismatch, wager and foreign options refused', async () => {
      let game = await start(player, { mode: 'survival', course_id: small.id });
      const right = await answer(player, game, true);
      expect(right).toMatchObject({ correct: true, timed_out: false, points_delta: 10 });
      expect(right.correct_option_ids).toEqual([key.get(game.current_question!.id)!.right]);
      game = right.game;
      expect([game.score, game.lives, game.questions_answered, game.correct_answers]).toEqual([10, 3, 1, 1]);
      expect(game.current_question!.number).toBe(2);

      const q = game.current_question!;
      const mismatch = await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: randomUUID(), option_ids: [] })
        .expect(409);
      expect(mismatch.body.error.code).toBe('question_mismatch');
      await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: q.id, option_ids: [key.get(q.id)!.right], wager: 5 })
        .expect(422);
      await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: q.id, option_ids: [randomUUID()] })
        .expect(422);
      await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: q.id, option_ids: Array.from({ length: 11 }, () => randomUUID()) })
        .expect(422);

      const wrong = await answer(player, game, false);
      expect(wrong).toMatchObject({ correct: false, timed_out: false, points_delta: 0 });
      expect([wrong.game.score, wrong.game.lives]).toEqual([10, 2]);
      // No option at all is a wrong answer too.
      const none = await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: wrong.game.current_question!.id, option_ids: [] })
        .expect(200);
      expect([none.body.correct, none.body.game.lives]).toEqual([false, 1]);
      const last = await answer(player, none.body.game, false);
      expect(last.game).toMatchObject({
        status: 'finished',
        end_reason: 'lives_exhausted',
        lives: 0,
        score: 10,
        xp_awarded: 1,
      });
      expect(last.game.current_question).toBeNull();
      const events = await finishedEvents(game.id);
      expect(events).toEqual([
        {
          actor_id: player.user.id,
          payload: {
            user_id: player.user.id,
            game_id: game.id,
            mode: 'survival',
            score: 10,
            end_reason: 'lives_exhausted',
          },
        },
      ]);
      const after = await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: randomUUID(), option_ids: [] })
        .expect(409);
      expect(after.body.error.code).toBe('game_not_in_progress');
    });

    it('two answers to the same question at once: one counts, the other is 409 question_mismatch', async () => {
      const game = await start(player, { mode: 'survival', course_id: small.id });
      const q = game.current_question!;
      const both = await Promise.all(
        [0, 1].map(() =>
          player.agent
            .post(`${games()}/${game.id}/answers`)
            .send({ question_id: q.id, option_ids: [key.get(q.id)!.right] }),
        ),
      );
      expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
      const read = (await player.agent.get(`${games()}/${game.id}`).expect(200)).body as Game;
      expect([read.score, read.questions_answered]).toEqual([10, 1]);
      await player.agent.post(`${games()}/${game.id}/abandon`).expect(200);
    });

    it('timing: an answer at deadline + 1 000 ms is in time; 1 ms later it is late (wrong, a life)', async () => {
      const game = await start(player, { mode: 'survival', course_id: small.id });
      const deadline = Date.parse(game.current_question!.deadline_at);
      freezeAt(deadline + 1000);
      const onTime = await answer(player, game, true);
      expect([onTime.correct, onTime.timed_out]).toEqual([true, false]);
      const next = onTime.game.current_question!;
      expect(next.served_at).toBe(new Date(deadline + 1000).toISOString());
      expect(Date.parse(next.deadline_at)).toBe(deadline + 1000 + 20_000);
      freezeAt(Date.parse(next.deadline_at) + 1001);
      const late = await answer(player, onTime.game, true);
      expect(late).toMatchObject({ correct: false, timed_out: true, points_delta: 0 });
      expect([late.game.lives, late.game.score, late.game.questions_answered]).toEqual([2, 10, 2]);
      unfreeze();
    });

    it('a read past the grace records the timeout first and serves the next question from that moment', async () => {
      const game = await start(player, { mode: 'survival', course_id: small.id });
      const deadline = Date.parse(game.current_question!.deadline_at);
      freezeAt(deadline + 1000);
      const inTime = (await player.agent.get(`${games()}/${game.id}`).expect(200)).body as Game;
      expect([inTime.lives, inTime.current_question!.number]).toEqual([3, 1]);
      freezeAt(deadline + 1001);
      const read = (await player.agent.get(`${games()}/${game.id}`).expect(200)).body as Game;
      expect([read.lives, read.questions_answered, read.current_question!.number]).toEqual([2, 1, 2]);
      expect(read.current_question!.served_at).toBe(new Date(deadline + 1001).toISOString());
      expect(read.server_now).toBe(new Date(deadline + 1001).toISOString());
      // An answer naming the timed-out question now is a mismatch.
      const stale = await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: game.current_question!.id, option_ids: [] })
        .expect(409);
      expect(stale.body.error.code).toBe('question_mismatch');
      unfreeze();
      await player.agent.post(`${games()}/${game.id}/abandon`).expect(200);
    });

    it('ends with questions_exhausted when the drawn questions run out, and question_limit after 100', async () => {
      let game = await start(player, { mode: 'survival', course_id: small.id });
      for (let i = 0; i < 6; i++) game = (await answer(player, game, true)).game;
      expect(game).toMatchObject({ status: 'finished', end_reason: 'questions_exhausted', score: 60, xp_awarded: 6 });

      const champion = await member(t, orgId);
      await enroll(champion, orgId, big.id);
      let long = await start(champion, { mode: 'survival', course_id: big.id });
      for (let i = 0; i < 100; i++) long = (await answer(champion, long, true)).game;
      expect(long).toMatchObject({ status: 'finished', end_reason: 'question_limit', score: 1000, xp_awarded: 30 });
    });
  });

  describe('speed', () => {
    it('60 s for the whole game: +10 right, -5 wrong never below 0; over at ends_at + 1 000 ms', async () => {
      const game = await start(player, { mode: 'speed', course_id: small.id });
      expect(Date.parse(game.ends_at!) - Date.parse(game.started_at)).toBe(60_000);
      expect(game.current_question!.deadline_at).toBe(game.ends_at);
      expect([game.lives, game.points]).toEqual([null, null]);
      const wrong = await answer(player, game, false);
      expect([wrong.points_delta, wrong.game.score]).toEqual([0, 0]);
      const right = await answer(player, wrong.game, true);
      const again = await answer(player, right.game, true);
      const minus = await answer(player, again.game, false);
      expect([minus.points_delta, minus.game.score]).toEqual([-5, 15]);
      freezeAt(Date.parse(game.ends_at!) + 1001);
      const over = (await player.agent.get(`${games()}/${game.id}`).expect(200)).body as Game;
      expect(over).toMatchObject({ status: 'finished', end_reason: 'time_up', score: 15, current_question: null });
      unfreeze();
    });

    it('an answer at the very end is counted and ends the game (time_up); 1 ms after the grace it is late', async () => {
      const game = await start(player, { mode: 'speed', course_id: small.id });
      freezeAt(Date.parse(game.ends_at!) + 1000);
      const last = await answer(player, game, true);
      expect([last.correct, last.timed_out, last.game.status, last.game.end_reason]).toEqual([
        true,
        false,
        'finished',
        'time_up',
      ]);
      expect(last.game.score).toBe(10);
      unfreeze();

      const other = await start(player, { mode: 'speed', course_id: small.id });
      freezeAt(Date.parse(other.ends_at!) + 1001);
      const late = await answer(player, other, true);
      expect([late.correct, late.timed_out, late.points_delta, late.game.end_reason]).toEqual([
        false,
        true,
        0,
        'time_up',
      ]);
      unfreeze();
    });
  });

  describe('risk', () => {
    it('wagers 1..points: right +wager, wrong -wager; 422 without or beyond; ends at 0 points', async () => {
      const game = await start(player, { mode: 'risk', course_id: small.id });
      expect([game.score, game.points, game.lives]).toEqual([100, 100, null]);
      expect(Date.parse(game.current_question!.deadline_at) - Date.parse(game.current_question!.served_at)).toBe(
        30_000,
      );
      const q = game.current_question!;
      for (const wager of [undefined, 0, 101, 2.5, '10']) {
        await player.agent
          .post(`${games()}/${game.id}/answers`)
          .send({ question_id: q.id, option_ids: [key.get(q.id)!.right], ...(wager === undefined ? {} : { wager }) })
          .expect(422);
      }
      const won = await answer(player, game, true, { wager: 40 });
      expect([won.points_delta, won.game.points]).toEqual([40, 140]);
      const lost = await answer(player, won.game, false, { wager: 140 });
      expect([lost.points_delta, lost.game.points]).toEqual([-140, 0]);
      expect(lost.game).toMatchObject({ status: 'finished', end_reason: 'points_exhausted', score: 0, xp_awarded: 0 });
    });

    it('a late answer loses max(1, ceil(points / 10)) whatever the wager; 10 questions at most', async () => {
      const learner = await member(t, orgId);
      await enroll(learner, orgId, big.id);
      let game = await start(learner, { mode: 'risk', course_id: big.id });
      freezeAt(Date.parse(game.current_question!.deadline_at) + 1001);
      const late = await answer(learner, game, true, { wager: 100 });
      expect([late.timed_out, late.points_delta, late.game.points]).toEqual([true, -10, 90]);
      unfreeze();
      game = late.game;
      for (let i = 0; i < 9; i++) game = (await answer(learner, game, true, { wager: 1 })).game;
      expect(game).toMatchObject({
        status: 'finished',
        end_reason: 'question_limit',
        questions_answered: 10,
        points: 99,
      });
    });
  });

  describe('abandonment and privacy', () => {
    it('abandon: 200 abandoned (no XP), then 409 game_not_in_progress; the event says abandoned', async () => {
      const game = await start(player, { mode: 'survival', course_id: small.id });
      const res = await player.agent.post(`${games()}/${game.id}/abandon`).expect(200);
      expect(res.body).toMatchObject({ status: 'abandoned', end_reason: 'abandoned', xp_awarded: 0 });
      const again = await player.agent.post(`${games()}/${game.id}/abandon`).expect(409);
      expect(again.body.error.code).toBe('game_not_in_progress');
      expect((await finishedEvents(game.id))[0].payload.end_reason).toBe('abandoned');
    });

    it('untouched for 10 minutes: abandoned on the next request, or by the schedule', async () => {
      const game = await start(player, { mode: 'survival', course_id: small.id });
      const touched = Date.parse(game.started_at);
      freezeAt(touched + 10 * 60_000 - 1);
      // Past the question's grace but not idle: a timeout is recorded (and the game touched).
      const read = (await player.agent.get(`${games()}/${game.id}`).expect(200)).body as Game;
      expect([read.status, read.lives]).toEqual(['in_progress', 2]);
      freezeAt(touched + 20 * 60_000 - 1);
      await player.agent.post('/api/v1/auth/refresh').expect(200);
      const idle = await player.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: read.current_question!.id, option_ids: [] })
        .expect(409);
      expect(idle.body.error.code).toBe('game_not_in_progress');
      expect((await player.agent.get(`${games()}/${game.id}`).expect(200)).body.status).toBe('abandoned');
      unfreeze();

      const other = await member(t, orgId);
      await enroll(other, orgId, small.id);
      const forgotten = await start(other, { mode: 'risk', course_id: small.id });
      freezeAt(Date.parse(forgotten.started_at) + 10 * 60_000);
      expect(await t.app.get(GamesService).abandonIdle()).toBeGreaterThanOrEqual(1);
      unfreeze();
      const gone = await t.db.query(`SELECT status, end_reason FROM games WHERE id = $1`, [forgotten.id]);
      expect(gone).toEqual([{ status: 'abandoned', end_reason: 'abandoned' }]);
      const events = await finishedEvents(forgotten.id);
      expect(events).toHaveLength(1);
      expect(events[0].actor_id).toBeNull();
    });

    it('another person’s game is 404 everywhere; the list holds the caller’s games only, most recent first', async () => {
      const game = await start(player, { mode: 'survival', course_id: small.id });
      const other = await member(t, orgId);
      await other.agent.get(`${games()}/${game.id}`).expect(404);
      await other.agent.post(`${games()}/${game.id}/abandon`).expect(404);
      await other.agent
        .post(`${games()}/${game.id}/answers`)
        .send({ question_id: game.current_question!.id, option_ids: [] })
        .expect(404);
      await player.agent.get(`${games()}/not-a-uuid`).expect(404);
      expect((await other.agent.get(games()).expect(200)).body.total).toBe(0);
      const list = await player.agent.get(`${games()}?mode=survival&limit=2`).expect(200);
      expect(list.body.items[0].id).toBe(game.id);
      expect(list.body.items).toHaveLength(2);
      const inProgress = await player.agent.get(`${games()}?status=in_progress`).expect(200);
      expect(inProgress.body.items.map((g: Game) => g.id)).toEqual([game.id]);
      await player.agent.get(`${games()}?status=won`).expect(422);
      await player.agent.post(`${games()}/${game.id}/abandon`).expect(200);
    });

    it('answers: 429 after 120 per minute per account', async () => {
      const person = await member(t, orgId);
      await enroll(person, orgId, small.id);
      const game = await start(person, { mode: 'survival', course_id: small.id });
      let last = 0;
      for (let i = 0; i < 121; i++) {
        last = (
          await person.agent.post(`${games()}/${game.id}/answers`).send({ question_id: randomUUID(), option_ids: [] })
        ).status;
        if (i < 120) expect(last).toBe(409);
      }
      expect(last).toBe(429);
    });
  });

  describe('leaderboard', () => {
    it('best finished score per member in the period, shared ranks, me, visibility of people', async () => {
      await owner.agent.post('/api/v1/auth/refresh').expect(200);
      const orgB = await createOrganization(t, owner, 'Board Org');
      const c = small;
      const people: SignedIn[] = [];
      for (let i = 0; i < 3; i++) {
        const p = await member(t, orgB);
        await enroll(p, orgB, c.id);
        people.push(p);
      }
      const base = `/api/v1/organizations/${orgB}/games`;
      async function play(p: SignedIn, rights: number): Promise<void> {
        let game = (await p.agent.post(base).send({ mode: 'survival', course_id: c.id }).expect(201)).body as Game;
        for (let i = 0; i < 6 && game.status === 'in_progress'; i++) {
          const q = game.current_question!;
          const res = await p.agent
            .post(`${base}/${game.id}/answers`)
            .send({ question_id: q.id, option_ids: [i < rights ? key.get(q.id)!.right : key.get(q.id)!.wrong] })
            .expect(200);
          game = res.body.game;
        }
      }
      await play(people[0], 2); // 20
      await play(people[0], 4); // 40 (best)
      await play(people[1], 4); // 40
      await play(people[2], 1); // 10
      // An abandoned game never counts.
      const abandoned = (await people[2].agent.post(base).send({ mode: 'survival', course_id: c.id }).expect(201)).body;
      await people[2].agent.post(`${base}/${abandoned.id}/abandon`).expect(200);

      const asStudent = await people[2].agent.get(`${base}/leaderboard?mode=survival`).expect(200);
      expect(asStudent.body.total).toBe(3);
      expect(asStudent.body.items.map((e: { rank: number; best_score: number }) => [e.rank, e.best_score])).toEqual([
        [1, 40],
        [1, 40],
        [3, 10],
      ]);
      const sortedIds = [people[0].user.id, people[1].user.id].sort();
      // Colleagues without a public profile are anonymous to a student; the caller sees themself.
      expect(asStudent.body.items[0].person).toEqual({
        user_id: null,
        username: null,
        name: null,
        avatar_svg_url: null,
        anonymous: true,
      });
      expect(asStudent.body.items[2]).toMatchObject({
        is_me: true,
        person: { user_id: people[2].user.id, anonymous: false },
      });
      expect(asStudent.body.me).toEqual({ rank: 3, best_score: 10 });
      // The owner sees everyone, ties ordered by user id.
      const asOwner = await owner.agent.get(`${base}/leaderboard?mode=survival&period=all`).expect(200);
      expect(asOwner.body.items.slice(0, 2).map((e: { person: { user_id: string } }) => e.person.user_id)).toEqual(
        sortedIds,
      );
      expect(asOwner.body.me).toEqual({ rank: null, best_score: null });
      const speed = await owner.agent.get(`${base}/leaderboard?mode=speed`).expect(200);
      expect(speed.body.total).toBe(0);
      await owner.agent.get(`${base}/leaderboard`).expect(422);
      await owner.agent.get(`${base}/leaderboard?mode=survival&period=year`).expect(422);

      // Eight days later the week board is empty (the month's only if the month changed); `all` keeps them.
      const monthBefore = t.clock.now().toISOString().slice(0, 7);
      t.clock.advance(8 * 86_400_000);
      await owner.agent.post('/api/v1/auth/refresh').expect(200);
      const sameMonth = t.clock.now().toISOString().slice(0, 7) === monthBefore;
      expect((await owner.agent.get(`${base}/leaderboard?mode=survival&period=week`).expect(200)).body.total).toBe(0);
      expect((await owner.agent.get(`${base}/leaderboard?mode=survival&period=month`).expect(200)).body.total).toBe(
        sameMonth ? 3 : 0,
      );
      expect((await owner.agent.get(`${base}/leaderboard?mode=survival&period=all`).expect(200)).body.total).toBe(3);
    });
  });
});
