import type { Socket } from 'socket.io-client';
import type { ManualClock } from '@/core/clock/clock';
import { Realtime } from '@/core/realtime/realtime.service';
import { DuelEngine, DuelTiming, DuelLiveStore } from '@/modules/practice/duels/testing';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import { enroll, member } from '../../support/exams';
import { accessCookie, call, connected, Inbox, nextEvent, refused, socketTo } from '../../support/realtime';
import { adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { resendUntil, waitUntil } from '../../support/wait';

const ROUND_MS = 1500;
const COUNTDOWN_MS = 150;
const WINDOW_MS = 1500;
const GAP_MS = 150;
const QUEUE_TIMEOUT_MS = 1200;
const timing = {
  provide: DuelTiming,
  useValue: new DuelTiming(ROUND_MS, COUNTDOWN_MS, WINDOW_MS, GAP_MS, QUEUE_TIMEOUT_MS),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- event payloads read field by field
type Json = Record<string, any>;

interface Player {
  s: SignedIn;
  cookie: string;
  socket: Socket;
  inbox: Inbox;
}

/**
 * The clocks of the file's instances (the Clock of each app). They move together, so a round starts the moment a
 * test needs it to instead of after a pause; the engine's own timers (deadlines, gaps, windows) stay real.
 */
const clocks: ManualClock[] = [];

function quiz(n: number, tag: string) {
  return {
    passing_score: 50,
    questions: Array.from({ length: n }, (_, i) => ({
      prompt: `${tag} question ${i + 1}`,
      kind: 'single' as const,
      options: [
        { text: 'Right', correct: true },
        { text: 'Wrong', correct: false },
      ],
    })),
  };
}

async function publicMember(t: TestApp, orgId: string, role: 'student' | 'teacher' | 'admin' = 'student') {
  const s = await member(t, orgId, role);
  await s.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
  return s;
}

async function player(t: TestApp, orgId: string, s: SignedIn, base: TestApp = t): Promise<Player> {
  const cookie = await accessCookie(s);
  const socket = socketTo(base, '/duels', { cookie, organizationId: orgId });
  const inbox = new Inbox(socket);
  await connected(socket);
  return { s, cookie, socket, inbox };
}

function option(round: Json, right: boolean): string {
  const opts = round.question.options as { id: string; text: string }[];
  return opts.find((o) => (o.text === 'Right') === right)!.id;
}

/** Moves the instances' clocks to the round's start when it is still ahead (no waiting), then answers. */
async function answer(p: Player, duelId: string, round: Json, right: boolean): Promise<Json> {
  const ahead = new Date(round.starts_at).getTime() - clocks[0].nowMs();
  if (ahead >= 0) for (const clock of clocks) clock.advance(ahead + 1);
  return call(p.socket, 'duel:answer', { duel_id: duelId, round: round.round, option_ids: [option(round, right)] });
}

/** Plays 5 rounds: `a` always right, `b` always wrong; returns the finished events. */
async function playWhole(a: Player, b: Player, duelId: string): Promise<{ a: Json; b: Json; results: Json[] }> {
  const finishedA = a.inbox.take<Json>('duel:finished', 30_000);
  const finishedB = b.inbox.take<Json>('duel:finished', 30_000);
  const results: Json[] = [];
  for (let n = 1; n <= 5; n++) {
    const ra = await a.inbox.take<Json>('duel:round', 10_000);
    expect(ra.round).toBe(n);
    const resultA = a.inbox.take<Json>('duel:round_result', 10_000);
    const ackA = await answer(a, duelId, ra, true);
    expect(ackA).toEqual({ ok: true, received_at: expect.any(String) });
    const ackB = await answer(b, duelId, ra, false);
    expect(ackB.ok).toBe(true);
    results.push(await resultA);
  }
  return { a: await finishedA, b: await finishedB, results };
}

describe('Duels (extensions-v2 8)', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let course: MadeCourse;
  let tiny: MadeCourse;
  let owner: SignedIn;
  const open: Socket[] = [];
  const keep = (p: Player): Player => {
    open.push(p.socket);
    return p;
  };

  beforeAll(async () => {
    t = await createTestApp({ overrides: [timing] });
    clocks.push(t.clock);
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Duels A');
    orgB = await createOrganization(t, await adult(t), 'Duels B');
    course = await makeCourse(t, owner.user.id, {
      title: 'Duel course',
      lessons: [{ title: 'L1', quiz: quiz(6, 'D') }],
    });
    tiny = await makeCourse(t, owner.user.id, { title: 'Tiny course', lessons: [{ title: 'L1', quiz: quiz(1, 'T') }] });
  });

  afterEach(() => {
    for (const s of open.splice(0)) s.disconnect();
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('challenges over HTTP', () => {
    it('challenge, accept, ready and a whole duel: rounds, scoring, result, records and duel.finished', async () => {
      const ann = await publicMember(t, orgA);
      const bob = await publicMember(t, orgA);
      const b = keep(await player(t, orgA, bob));
      const challenged = nextEvent<Json>(b.socket, 'duel:challenge');
      const created = await ann.agent
        .post(`/api/v1/organizations/${orgA}/duels`)
        .send({ opponent_username: bob.user.username })
        .expect(201);
      expect(created.body).toMatchObject({
        origin: 'challenge',
        status: 'pending',
        my_role: 'challenger',
        course_id: null,
        challenger: { user_id: ann.user.id, anonymous: false },
        opponent: { user_id: bob.user.id, anonymous: false },
        scores: { challenger: 0, opponent: 0 },
        result: null,
        rounds: [],
      });
      const duelId = created.body.id as string;
      expect((await challenged).duel).toMatchObject({ id: duelId, my_role: 'opponent', status: 'pending' });

      const accepted = await bob.agent.post(`/api/v1/organizations/${orgA}/duels/${duelId}/accept`).expect(200);
      expect(accepted.body.status).toBe('ready');
      const a = keep(await player(t, orgA, ann));
      const startA = a.inbox.take<Json>('duel:start');
      const readyA = await call(a.socket, 'duel:ready', { duel_id: duelId });
      expect(readyA).toMatchObject({ ok: true, duel: { id: duelId, status: 'ready' } });
      const readyB = await call(b.socket, 'duel:ready', { duel_id: duelId });
      expect(readyB).toMatchObject({ ok: true, duel: { id: duelId, status: 'active' } });
      expect(await startA).toEqual({
        duel_id: duelId,
        rounds: 5,
        round_ms: ROUND_MS,
        countdown_ms: COUNTDOWN_MS,
        reconnect_window_ms: WINDOW_MS,
      });

      const { a: finA, b: finB, results } = await playWhole(a, b, duelId);
      for (const r of results) {
        expect(r.you.correct).toBe(true);
        expect(r.you.points).toBeGreaterThanOrEqual(100);
        expect(r.you.points).toBeLessThanOrEqual(150);
        expect(r.opponent).toMatchObject({ correct: false, points: 0 });
        expect(r.correct_option_ids).toHaveLength(1);
      }
      const total = results.reduce((sum, r) => sum + (r.you.points as number), 0);
      expect(finA).toEqual({
        duel_id: duelId,
        result: 'win',
        reason: 'completed',
        scores: { you: total, opponent: 0 },
        xp_awarded: 15,
      });
      expect(finB).toMatchObject({
        result: 'loss',
        reason: 'completed',
        xp_awarded: 0,
        scores: { you: 0, opponent: total },
      });

      const rec = await bob.agent.get(`/api/v1/organizations/${orgA}/duels/${duelId}`).expect(200);
      expect(rec.body).toMatchObject({
        status: 'finished',
        my_role: 'opponent',
        scores: { challenger: total, opponent: 0 },
        result: { winner: 'challenger', reason: 'completed' },
      });
      expect(rec.body.rounds).toHaveLength(5);
      expect(rec.body.rounds[0]).toMatchObject({
        round: 1,
        challenger: { correct: true },
        opponent: { correct: false, points: 0 },
        question: { prompt: expect.any(String), correct_option_ids: [expect.any(String)] },
      });
      const events = await t.db.query(
        `SELECT payload FROM domain_events WHERE name = 'duel.finished' AND payload->>'duel_id' = $1`,
        [duelId],
      );
      expect(events).toEqual([
        {
          payload: {
            duel_id: duelId,
            challenger_id: ann.user.id,
            opponent_id: bob.user.id,
            winner_id: ann.user.id,
            reason: 'completed',
            rounds_started: 5,
          },
        },
      ]);
      const stats = await ann.agent.get(`/api/v1/organizations/${orgA}/duels/stats`).expect(200);
      expect(stats.body).toEqual({ played: 1, won: 1, lost: 0, drawn: 0, current_win_streak: 1, best_win_streak: 1 });
      const list = await bob.agent.get(`/api/v1/organizations/${orgA}/duels?status=finished`).expect(200);
      expect(list.body).toMatchObject({ total: 1, items: [{ id: duelId }] });
      expect((await bob.agent.get(`/api/v1/organizations/${orgA}/duels?role=challenger`).expect(200)).body.total).toBe(
        0,
      );
    });

    it('answers the error rows of a challenge', async () => {
      const ann = await publicMember(t, orgA);
      const bob = await publicMember(t, orgA);
      const hidden = await member(t, orgA, 'student');
      const path = `/api/v1/organizations/${orgA}/duels`;
      await ann.agent.post(path).send({ opponent_username: 'nobody-here' }).expect(404);
      // Not public and the caller is a student: not visible, so 404.
      await ann.agent.post(path).send({ opponent_username: hidden.user.username }).expect(404);
      // The owner sees everyone.
      await owner.agent.post(path).send({ opponent_username: hidden.user.username }).expect(201);
      const self = await ann.agent.post(path).send({ opponent_username: ann.user.username }).expect(409);
      expect(self.body.error.code).toBe('opponent_unavailable');
      await ann.agent.post(path).send({ opponent_username: 5 }).expect(422);
      await ann.agent.post(path).send({ opponent_username: bob.user.username, extra: 1 }).expect(422);
      const notEnrolled = await ann.agent
        .post(path)
        .send({ opponent_username: bob.user.username, course_id: course.id })
        .expect(403);
      expect(notEnrolled.body.error.code).toBe('not_enrolled');
      await enroll(ann, orgA, course.id);
      const oppNot = await ann.agent
        .post(path)
        .send({ opponent_username: bob.user.username, course_id: course.id })
        .expect(409);
      expect(oppNot.body.error.code).toBe('opponent_not_enrolled');
      await enroll(bob, orgA, tiny.id);
      await enroll(ann, orgA, tiny.id);
      const few = await ann.agent
        .post(path)
        .send({ opponent_username: bob.user.username, course_id: tiny.id })
        .expect(409);
      expect(few.body.error.code).toBe('not_enough_questions');
      const first = await ann.agent.post(path).send({ opponent_username: bob.user.username }).expect(201);
      const again = await bob.agent.post(path).send({ opponent_username: ann.user.username }).expect(409);
      expect(again.body.error.code).toBe('duel_pending_exists');
      // Accept by the challenger: 403; decline; then nothing else moves it.
      await ann.agent.post(`${path}/${first.body.id}/accept`).expect(403);
      const declined = await bob.agent.post(`${path}/${first.body.id}/decline`).expect(200);
      expect(declined.body.status).toBe('declined');
      const late = await bob.agent.post(`${path}/${first.body.id}/accept`).expect(409);
      expect(late.body.error.code).toBe('duel_not_pending');
      const second = await ann.agent.post(path).send({ opponent_username: bob.user.username }).expect(201);
      await bob.agent.post(`${path}/${second.body.id}/cancel`).expect(403);
      expect((await ann.agent.post(`${path}/${second.body.id}/cancel`).expect(200)).body.status).toBe('cancelled');
      // 24 h later a pending challenge is expired (on touch and by the schedule).
      const third = await ann.agent.post(path).send({ opponent_username: bob.user.username }).expect(201);
      t.clock.advance(24 * 3600_000 + 1000);
      try {
        await ann.agent.post('/api/v1/auth/refresh').expect(200);
        await bob.agent.post('/api/v1/auth/refresh').expect(200);
        const expired = await bob.agent.post(`${path}/${third.body.id}/accept`).expect(409);
        expect(expired.body.error.code).toBe('duel_not_pending');
        const got = await ann.agent.get(`${path}/${third.body.id}`).expect(200);
        expect(['expired', 'pending']).toContain(got.body.status);
        await ann.agent.get(path).expect(200);
        expect((await ann.agent.get(`${path}/${third.body.id}`).expect(200)).body.status).toBe('expired');
      } finally {
        t.clock.advance(-(24 * 3600_000 + 1000));
        await ann.agent.post('/api/v1/auth/refresh');
        await bob.agent.post('/api/v1/auth/refresh');
      }
    });

    it('at most 20 pending challenges sent (21st: duel_limit_reached); a live duel blocks accepting another', async () => {
      const ann = await publicMember(t, orgA);
      const bob = await publicMember(t, orgA);
      const cara = await publicMember(t, orgA);
      const path = `/api/v1/organizations/${orgA}/duels`;
      await t.db.query(
        `INSERT INTO duels (organization_id, origin, status, challenger_id, opponent_id, questions, created_at, expires_at)
         SELECT $1, 'challenge', 'pending', $2, $3, '[]', now(), now() + interval '1 day' FROM generate_series(1, 19)`,
        [orgA, ann.user.id, cara.user.id],
      );
      const twentieth = await ann.agent.post(path).send({ opponent_username: bob.user.username }).expect(201);
      const dan = await publicMember(t, orgA);
      const over = await ann.agent.post(path).send({ opponent_username: dan.user.username }).expect(409);
      expect(over.body.error.code).toBe('duel_limit_reached');
      // Cara accepts one of Ann's; Bob then cannot accept his: Ann has a ready duel.
      const [one] = await t.db.query(`SELECT id FROM duels WHERE challenger_id = $1 AND opponent_id = $2 LIMIT 1`, [
        ann.user.id,
        cara.user.id,
      ]);
      await cara.agent.post(`${path}/${one.id}/accept`).expect(200);
      const busy = await bob.agent.post(`${path}/${twentieth.body.id}/accept`).expect(409);
      expect(busy.body.error.code).toBe('duel_in_progress');
      // A ready duel past its 5 minutes cannot be started.
      const a = keep(await player(t, orgA, cara));
      t.clock.advance(5 * 60_000 + 1000);
      try {
        expect(await call(a.socket, 'duel:ready', { duel_id: one.id })).toMatchObject({
          ok: false,
          error: { code: 'duel_not_ready' },
        });
      } finally {
        t.clock.advance(-(5 * 60_000 + 1000));
      }
    });

    it('limits challenges to 30 per hour per account (429)', async () => {
      const ann = await publicMember(t, orgA);
      const path = `/api/v1/organizations/${orgA}/duels`;
      for (let i = 0; i < 30; i++)
        await ann.agent
          .post(path)
          .send({ opponent_username: `nobody-${i}` })
          .expect(404);
      const limited = await ann.agent.post(path).send({ opponent_username: 'nobody-31' }).expect(429);
      expect(limited.body.error.code).toBe('too_many_requests');
    });

    it('keeps duels inside their organization and their players (HTTP)', async () => {
      const ann = await publicMember(t, orgA);
      const bob = await publicMember(t, orgA);
      const colleague = await publicMember(t, orgA, 'admin');
      const created = await ann.agent
        .post(`/api/v1/organizations/${orgA}/duels`)
        .send({ opponent_username: bob.user.username })
        .expect(201);
      const id = created.body.id as string;
      // Another member, even an admin, is not a player: 404.
      await colleague.agent.get(`/api/v1/organizations/${orgA}/duels/${id}`).expect(404);
      await colleague.agent.post(`/api/v1/organizations/${orgA}/duels/${id}/decline`).expect(404);
      // Through another organization's path: 404; an outsider: 404.
      const outsider = await publicMember(t, orgB);
      await outsider.agent.get(`/api/v1/organizations/${orgA}/duels/${id}`).expect(404);
      await outsider.agent.get(`/api/v1/organizations/${orgA}/duels`).expect(404);
      await outsider.agent
        .post(`/api/v1/organizations/${orgA}/duels`)
        .send({ opponent_username: bob.user.username })
        .expect(404);
      // A person of org B cannot be challenged from A.
      await ann.agent
        .post(`/api/v1/organizations/${orgA}/duels`)
        .send({ opponent_username: outsider.user.username })
        .expect(404);
      // A token of B used on A: 404; a read-only token of A cannot write.
      const tokenB = await personalToken(t, outsider, orgB, 'write');
      await bearer(t, tokenB).get(`/api/v1/organizations/${orgA}/duels/${id}`).expect(404);
      const readA = await personalToken(t, ann, orgA, 'read');
      await bearer(t, readA).get(`/api/v1/organizations/${orgA}/duels/${id}`).expect(200);
      const ro = await bearer(t, readA).post(`/api/v1/organizations/${orgA}/duels/${id}/cancel`).expect(403);
      expect(ro.body.error.code).toBe('credential_read_only');
      await ann.agent.get(`/api/v1/organizations/${orgA}/duels/not-a-uuid`).expect(404);
    });
  });

  describe('matchmaking and play over Socket.IO', () => {
    it('pairs the two oldest queued players and plays; queue errors', async () => {
      const a = keep(await player(t, orgA, await publicMember(t, orgA)));
      const b = keep(await player(t, orgA, await publicMember(t, orgA)));
      const joined = await call(a.socket, 'queue:join', {});
      expect(joined).toEqual({ ok: true, queued_at: expect.any(String) });
      expect(await call(a.socket, 'queue:join', {})).toMatchObject({ ok: false, error: { code: 'already_queued' } });
      expect(await call(a.socket, 'queue:leave', {})).toEqual({ ok: true });
      expect(await call(a.socket, 'queue:leave', {})).toEqual({ ok: true });
      await call(a.socket, 'queue:join', {});
      const matchedA = nextEvent<Json>(a.socket, 'queue:matched');
      const matchedB = nextEvent<Json>(b.socket, 'queue:matched');
      await call(b.socket, 'queue:join', { course_id: null });
      const mA = await matchedA;
      const mB = await matchedB;
      expect(mA.duel).toMatchObject({ origin: 'matchmaking', status: 'ready', my_role: 'challenger' });
      expect(mB.duel).toMatchObject({ id: mA.duel.id, my_role: 'opponent' });
      const duelId = mA.duel.id as string;
      expect(await call(a.socket, 'queue:join', {})).toMatchObject({ ok: false, error: { code: 'duel_in_progress' } });
      expect(await call(a.socket, 'queue:join', { course_id: tiny.id })).toMatchObject({ ok: false });
      await call(a.socket, 'duel:ready', { duel_id: duelId });
      const first = nextEvent<Json>(a.socket, 'duel:round');
      await call(b.socket, 'duel:ready', { duel_id: duelId });
      const round1 = await first;
      // Before starts_at: round_not_started; wrong duel: not_found; malformed: validation_error.
      const early = await call(a.socket, 'duel:answer', {
        duel_id: duelId,
        round: 1,
        option_ids: [option(round1, true)],
      });
      expect(early).toMatchObject({ ok: false, error: { code: 'round_not_started' } });
      const other = await call(a.socket, 'duel:answer', {
        duel_id: '00000000-0000-4000-8000-000000000000',
        round: 1,
        option_ids: [],
      });
      expect(other).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await call(a.socket, 'duel:answer', { duel_id: duelId, round: 9, option_ids: [] })).toMatchObject({
        ok: false,
        error: { code: 'validation_error' },
      });
      expect(await call(a.socket, 'duel:answer', { duel_id: duelId, round: 1, option_ids: 'x' })).toMatchObject({
        ok: false,
        error: { code: 'validation_error' },
      });
      const resultA = nextEvent<Json>(a.socket, 'duel:round_result', 10_000);
      const round2 = nextEvent<Json>(a.socket, 'duel:round', 10_000);
      const opponentAnswered = nextEvent<Json>(b.socket, 'duel:opponent_answered');
      expect((await answer(a, duelId, round1, true)).ok).toBe(true);
      expect(await opponentAnswered).toEqual({ duel_id: duelId, round: 1 });
      expect(await call(a.socket, 'duel:answer', { duel_id: duelId, round: 1, option_ids: [] })).toMatchObject({
        ok: false,
        error: { code: 'already_answered' },
      });
      // Bob never answers round 1: it closes at its deadline; a late answer is round_closed.
      const r1 = await resultA;
      expect(r1).toMatchObject({
        round: 1,
        you: { correct: true },
        opponent: { option_ids: [], points: 0, answer_ms: null },
      });
      expect(await call(b.socket, 'duel:answer', { duel_id: duelId, round: 1, option_ids: [] })).toMatchObject({
        ok: false,
        error: { code: 'round_closed' },
      });
      const state = await call<Json>(b.socket, 'duel:state', { duel_id: duelId });
      expect(state).toMatchObject({ ok: true, state: { duel: { id: duelId, status: 'active' }, scores: { you: 0 } } });
      // Forfeit once the second round started (before it, no XP: extensions-v3 6.3): the other wins.
      expect((await round2).round).toBe(2);
      const finA = nextEvent<Json>(a.socket, 'duel:finished');
      const finB = nextEvent<Json>(b.socket, 'duel:finished');
      expect(await call(b.socket, 'duel:forfeit', { duel_id: duelId })).toEqual({ ok: true });
      expect(await finA).toMatchObject({ result: 'win', reason: 'forfeit', xp_awarded: 15 });
      expect(await finB).toMatchObject({ result: 'loss', reason: 'forfeit', xp_awarded: 0 });
      expect(await call(b.socket, 'duel:forfeit', { duel_id: duelId })).toMatchObject({
        ok: false,
        error: { code: 'duel_not_active' },
      });
    });

    it('a player dropping and rejoining within the window loses no question; past the window forfeits', async () => {
      const annS = await publicMember(t, orgA);
      const bobS = await publicMember(t, orgA);
      const a = keep(await player(t, orgA, annS));
      const b = keep(await player(t, orgA, bobS));
      await call(a.socket, 'queue:join', {});
      const matched = nextEvent<Json>(a.socket, 'queue:matched');
      await call(b.socket, 'queue:join', {});
      const duelId = (await matched).duel.id as string;
      await call(a.socket, 'duel:ready', { duel_id: duelId });
      const round1 = nextEvent<Json>(b.socket, 'duel:round');
      await call(b.socket, 'duel:ready', { duel_id: duelId });
      const r1 = await round1;
      const res1 = nextEvent<Json>(b.socket, 'duel:round_result');
      await answer(a, duelId, r1, true);
      await answer(b, duelId, r1, true);
      await res1;
      expect((await a.inbox.take<Json>('duel:round')).round).toBe(1);
      // The engine's gap before round 2 is a real timer: it ends this long after round 1's result.
      const gapEndsAt = Date.now() + GAP_MS;
      // Bob drops before round 2.
      const gone = nextEvent<Json>(a.socket, 'duel:opponent_disconnected');
      b.socket.disconnect();
      const dis = await gone;
      expect(dis).toEqual({ duel_id: duelId, reconnect_deadline_at: expect.any(String) });
      // No new round while he is away: he comes back only once round 2 would have started, and round 2 then
      // starts after his return (its server_now is later than the moment he reconnects).
      await waitUntil(() => Date.now() > gapEndsAt + COUNTDOWN_MS, { intervalMs: 10, what: 'the gap after round 1' });
      const reconnectingAt = t.clock.nowMs();
      const round2A = a.inbox.take<Json>('duel:round', 10_000);
      const back = nextEvent<Json>(a.socket, 'duel:opponent_reconnected');
      const b2 = socketTo(t, '/duels', { cookie: b.cookie, organizationId: orgA });
      open.push(b2);
      const stateOnConnect = nextEvent<Json>(b2, 'duel:state');
      const round2B = nextEvent<Json>(b2, 'duel:round');
      await connected(b2);
      const st = await stateOnConnect;
      expect(st).toMatchObject({ duel: { id: duelId, status: 'active' }, scores: { you: expect.any(Number) } });
      expect(await back).toEqual({ duel_id: duelId });
      const r2 = await round2B;
      expect(r2.round).toBe(2);
      const r2A = await round2A;
      expect(r2A.round).toBe(2);
      expect(new Date(r2A.server_now).getTime()).toBeGreaterThanOrEqual(reconnectingAt);
      const bob2: Player = { s: bobS, cookie: b.cookie, socket: b2, inbox: new Inbox(b2) };
      const res2 = nextEvent<Json>(b2, 'duel:round_result');
      await answer(bob2, duelId, r2, true);
      await answer(a, duelId, r2, true);
      expect((await res2).you.correct).toBe(true);
      // Ann leaves for good: after the window Bob wins by disconnect.
      const fin = nextEvent<Json>(b2, 'duel:finished', 10_000);
      a.socket.disconnect();
      expect(await fin).toMatchObject({ duel_id: duelId, result: 'win', reason: 'disconnect', xp_awarded: 15 });
      const rec = await bobS.agent.get(`/api/v1/organizations/${orgA}/duels/${duelId}`).expect(200);
      expect(rec.body).toMatchObject({ status: 'finished', result: { winner: 'opponent', reason: 'disconnect' } });
      expect(rec.body.rounds).toHaveLength(2);
    });

    it('a queued player without a match leaves the queue with queue:timeout; a dropped socket leaves it too', async () => {
      const a = keep(await player(t, orgA, await publicMember(t, orgA)));
      await call(a.socket, 'queue:join', {});
      expect(await a.inbox.take('queue:timeout', QUEUE_TIMEOUT_MS + 3000)).toEqual({});
      // Out of the queue: joining again works.
      expect(await call(a.socket, 'queue:join', {})).toMatchObject({ ok: true });
      a.socket.disconnect();
      const duelStore = t.app.get(DuelLiveStore);
      await waitUntil(async () => !(await duelStore.isQueued(a.s.user.id)), { what: 'the dropped socket to leave' });
      const b = keep(await player(t, orgA, a.s));
      expect(await call(b.socket, 'queue:join', {})).toMatchObject({ ok: true });
      expect(await call(b.socket, 'queue:leave', {})).toEqual({ ok: true });
    });

    it('both players away past the window: abandoned, no result', async () => {
      const annS = await publicMember(t, orgA);
      const bobS = await publicMember(t, orgA);
      const a = keep(await player(t, orgA, annS));
      const b = keep(await player(t, orgA, bobS));
      await call(a.socket, 'queue:join', {});
      await call(b.socket, 'queue:join', {});
      const duelId = ((await a.inbox.take<Json>('queue:matched')).duel as Json).id as string;
      await call(a.socket, 'duel:ready', { duel_id: duelId });
      await call(b.socket, 'duel:ready', { duel_id: duelId });
      await a.inbox.take('duel:round');
      a.socket.disconnect();
      b.socket.disconnect();
      // The reconnect window is a real timer of the engine: wait for its outcome, the duel's end.
      await waitUntil(
        async () => {
          const [row] = await t.db.query<{ status: string }[]>(`SELECT status FROM duels WHERE id = $1`, [duelId]);
          return row.status !== 'active';
        },
        { what: 'the duel to end after the window' },
      );
      const rec = await annS.agent.get(`/api/v1/organizations/${orgA}/duels/${duelId}`).expect(200);
      expect(rec.body).toMatchObject({ status: 'abandoned', result: null });
      const events = await t.db.query(`SELECT 1 FROM domain_events WHERE payload->>'duel_id' = $1`, [duelId]);
      expect(events).toHaveLength(0);
    });

    it('refuses a token of another organization at the handshake, and no organization', async () => {
      const ann = await publicMember(t, orgA);
      const cookie = await accessCookie(ann);
      expect((await refused(socketTo(t, '/duels', { cookie, organizationId: orgB }))).message).toBe('not_found');
      expect((await refused(socketTo(t, '/duels', { cookie }))).message).toBe('not_found');
      const outsider = await publicMember(t, orgB);
      const tokenB = await personalToken(t, outsider, orgB, 'write');
      const r = await refused(socketTo(t, '/duels', { token: tokenB, organizationId: orgA }));
      expect(r).toEqual({ message: 'not_found', data: { code: 'not_found', message: expect.any(String) } });
      const ok = await connected(socketTo(t, '/duels', { token: tokenB, organizationId: orgB }));
      open.push(ok);
      const read = await personalToken(t, ann, orgA, 'read');
      expect((await refused(socketTo(t, '/duels', { token: read, organizationId: orgA }))).message).toBe(
        'credential_read_only',
      );
    });
  });

  describe('two API instances sharing Redis', () => {
    let other: TestApp;
    const people: SignedIn[] = [];

    beforeAll(async () => {
      // People first: the instances share the mail queue, and the sign-in code goes to the first one's sink.
      for (let i = 0; i < 4; i++) people.push(await publicMember(t, orgA));
      other = await createTestApp({
        overrides: [timing],
        databaseName: t.dbName,
        suffix: t.suffix,
        env: { BASE_URL: t.config.baseUrl },
        // The second instance's clock starts where the first one's is.
        clockOffsetMs: t.clock.nowMs() - Date.now(),
      });
      clocks.push(other.clock);
      // Both instances' stream readers are running once an emit on each reaches a socket held by the other.
      const probe = people[3];
      for (const [from, to] of [
        [t, other],
        [other, t],
      ]) {
        const s = await connected(socketTo(to, '/duels', { cookie: await accessCookie(probe), organizationId: orgA }));
        try {
          await resendUntil(
            () => from.app.get(Realtime).emitToUser('/duels', probe.user.id, 'probe:instances', {}),
            nextEvent(s, 'probe:instances', 15_000),
          );
        } finally {
          s.disconnect();
        }
      }
    });

    afterAll(async () => {
      for (const s of open.splice(0)) s.disconnect();
      clocks.splice(clocks.indexOf(other.clock), 1);
      await other?.close();
    });

    it('matches and plays a whole duel with one player on each instance', async () => {
      const a = keep(await player(t, orgA, people[0]));
      const b = keep(await player(t, orgA, people[1], other));
      await call(a.socket, 'queue:join', {});
      const matchedA = nextEvent<Json>(a.socket, 'queue:matched');
      const matchedB = nextEvent<Json>(b.socket, 'queue:matched');
      await call(b.socket, 'queue:join', {});
      const duelId = (await matchedA).duel.id as string;
      expect((await matchedB).duel.id).toBe(duelId);
      await call(a.socket, 'duel:ready', { duel_id: duelId });
      await call(b.socket, 'duel:ready', { duel_id: duelId });
      const { a: finA, b: finB } = await playWhole(a, b, duelId);
      expect(finA).toMatchObject({ result: 'win', reason: 'completed' });
      expect(finB).toMatchObject({ result: 'loss', reason: 'completed' });
    });

    it('when the driving instance goes, the instance holding the other player takes over and the duel ends', async () => {
      const [annS, bobS] = [people[2], people[3]];
      const a = keep(await player(t, orgA, annS));
      const b = keep(await player(t, orgA, bobS, other));
      await call(a.socket, 'queue:join', {});
      await call(b.socket, 'queue:join', {});
      const duelId = ((await a.inbox.take<Json>('queue:matched')).duel as Json).id as string;
      await call(a.socket, 'duel:ready', { duel_id: duelId });
      // Bob's ready, on the other instance, starts the duel there: that instance drives it.
      await call(b.socket, 'duel:ready', { duel_id: duelId });
      const r1 = await a.inbox.take<Json>('duel:round');
      await answer(a, duelId, r1, true);
      await answer(b, duelId, r1, true);
      await a.inbox.take('duel:round_result');
      // The driving instance stops (as on SIGTERM: its duels' leases are given up) and Bob's socket there drops.
      // (The instance itself stays up: two Nest apps in one process share passport's strategies.)
      await other.app.get(DuelEngine).beforeApplicationShutdown();
      b.socket.disconnect();
      // Bob comes back on the remaining instance; the game goes on there.
      const b2 = socketTo(t, '/duels', { cookie: b.cookie, organizationId: orgA });
      open.push(b2);
      const bob2: Player = { s: bobS, cookie: b.cookie, socket: b2, inbox: new Inbox(b2) };
      await connected(b2);
      const finA = a.inbox.take<Json>('duel:finished', 30_000);
      const finB = bob2.inbox.take<Json>('duel:finished', 30_000);
      for (;;) {
        const round = await a.inbox.take<Json>('duel:round', 10_000);
        const roundB = await bob2.inbox.take<Json>('duel:round', 10_000);
        expect(roundB.round).toBe(round.round);
        const res = a.inbox.take<Json>('duel:round_result', 10_000);
        await answer(a, duelId, round, true);
        await answer(bob2, duelId, roundB, false);
        await res;
        if (round.round === 5) break;
      }
      expect(await finA).toMatchObject({ result: 'win', reason: 'completed' });
      expect(await finB).toMatchObject({ result: 'loss', reason: 'completed' });
      const rec = await annS.agent.get(`/api/v1/organizations/${orgA}/duels/${duelId}`).expect(200);
      expect(rec.body.rounds).toHaveLength(5);
    });
  });
});
