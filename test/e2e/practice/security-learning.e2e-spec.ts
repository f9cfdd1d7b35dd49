import type { Socket } from 'socket.io-client';
import type { ExamDto } from '@/modules/learning/exams';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import {
  answerKey,
  courseWith,
  deepKeys,
  enroll,
  makeExam,
  member,
  openWindow,
  questions,
  type SessionBody,
} from '../../support/exams';
import { accessCookie, call, connected, Inbox, nextEvent, socketTo } from '../../support/realtime';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- event payloads read field by field
type Json = Record<string, any>;

const PLATFORM_ADMIN = 'keys@admins.test';
const KEY_FIELDS = ['correct_option_ids', 'explanation'];

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

/**
 * extensions-v3 section 6, rules 1 to 6: what a review found in exams, duels, XP, flashcards and games, each
 * reproduced end to end.
 */
describe('security rules of the learning areas (extensions-v3 6.1-6.6)', () => {
  let t: TestApp;
  const open: Socket[] = [];
  const keep = (s: Socket): Socket => {
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: PLATFORM_ADMIN } });
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.disconnect();
  });
  afterAll(() => t?.close());

  describe('6.1 exams: the staff view and the platform’s answer keys', () => {
    let owner: SignedIn;
    let platformAdmin: SignedIn;
    let org: string;

    const sessions = (examId: string): string => `/api/v1/organizations/${org}/exams/${examId}/sessions`;

    beforeAll(async () => {
      // An owner of a self-made organization, and a platform admin who is a member there.
      owner = await adult(t);
      org = await createOrganization(t, owner, 'Self-made');
      platformAdmin = await adult(t, PLATFORM_ADMIN);
      await addMember(t, org, platformAdmin.user.id, 'admin');
    });

    async function sitting(): Promise<{ exam: ExamDto; learner: SignedIn; session: SessionBody }> {
      const course = await courseWith(t, owner.user.id, { lessons: [{ title: 'Only lesson' }] });
      const exam = await makeExam(t, course.id, owner.user.id, { questions_per_attempt: 3, questions: questions(3) });
      await openWindow(t, org, owner.user.id, exam.id);
      // The owner's second account.
      const learner = await member(t, org, 'student');
      await enroll(learner, org, course.id);
      const session = (await learner.agent.post(sessions(exam.id)).expect(201)).body as SessionBody;
      return { exam, learner, session };
    }

    it('no corrections in the staff view while the session is in progress (read and list)', async () => {
      const { exam, session } = await sitting();
      const read = await owner.agent.get(`${sessions(exam.id)}/${session.id}`).expect(200);
      expect(read.body.status).toBe('in_progress');
      expect(read.body.corrections).toBeNull();
      expect([...deepKeys(read.body)].filter((k) => KEY_FIELDS.includes(k))).toEqual([]);
      const listed = await owner.agent.get(sessions(exam.id)).expect(200);
      expect(listed.body.items[0]).toMatchObject({ id: session.id, corrections: null });
      expect([...deepKeys(listed.body)].filter((k) => KEY_FIELDS.includes(k))).toEqual([]);
      // A platform admin does not see them either while it runs.
      const admin = await platformAdmin.agent.get(`${sessions(exam.id)}/${session.id}`).expect(200);
      expect(admin.body.corrections).toBeNull();
    });

    it('once closed: organization staff see correct true|false only; a platform admin sees the answer keys', async () => {
      const { exam, learner, session } = await sitting();
      const key = answerKey(exam);
      const [first] = session.questions;
      await learner.agent
        .put(`${sessions(exam.id)}/${session.id}/answers/${first.id}`)
        .send({ option_ids: key.get(first.id)!.right, seq: 1 })
        .expect(200);
      await learner.agent.post(`${sessions(exam.id)}/${session.id}/submit`).expect(200);

      const staff = await owner.agent.get(`${sessions(exam.id)}/${session.id}`).expect(200);
      expect(staff.body.corrections).toEqual(
        session.questions.map((q) => ({ question_id: q.id, correct: q.id === first.id })),
      );
      expect([...deepKeys(staff.body)].filter((k) => KEY_FIELDS.includes(k))).toEqual([]);
      const listed = await owner.agent.get(sessions(exam.id)).expect(200);
      expect([...deepKeys(listed.body)].filter((k) => KEY_FIELDS.includes(k))).toEqual([]);

      // Void with a retake: the review's answer carries no key either.
      const reviewed = await owner.agent
        .post(`${sessions(exam.id)}/${session.id}/review`)
        .send({ decision: 'void', reason: 'Again', allow_retake: true })
        .expect(200);
      expect(reviewed.body.corrections).toHaveLength(3);
      expect([...deepKeys(reviewed.body)].filter((k) => KEY_FIELDS.includes(k))).toEqual([]);

      const admin = await platformAdmin.agent.get(`${sessions(exam.id)}/${session.id}`).expect(200);
      expect(admin.body.corrections).toEqual(
        session.questions.map((q) => ({
          question_id: q.id,
          correct: q.id === first.id,
          correct_option_ids: key.get(q.id)!.right,
          explanation: exam.questions.find((p) => p.id === q.id)!.explanation,
        })),
      );
      // A platform admin's bearer token acts in one organization without platform powers: no keys.
      const token = await personalToken(t, platformAdmin, org, 'read');
      const viaToken = await bearer(t, token)
        .get(`${sessions(exam.id)}/${session.id}`)
        .expect(200);
      expect([...deepKeys(viaToken.body)].filter((k) => KEY_FIELDS.includes(k))).toEqual([]);
    });
  });

  describe('6.2 to 6.4 duels', () => {
    let course: MadeCourse;

    beforeAll(async () => {
      const author = await adult(t);
      course = await makeCourse(t, author.user.id, {
        title: 'Security duel course',
        lessons: [{ title: 'L1', quiz: quiz(6, 'S') }],
      });
      expect(course.id).toBeDefined();
    });

    async function publicMember(orgId: string): Promise<SignedIn> {
      const s = await member(t, orgId, 'student');
      await s.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
      return s;
    }

    async function sessionSocket(s: SignedIn, orgId: string): Promise<Socket> {
      const socket = keep(socketTo(t, '/duels', { cookie: await accessCookie(s), organizationId: orgId }));
      await connected(socket);
      return socket;
    }

    const challenge = async (from: SignedIn, orgId: string, to: SignedIn): Promise<string> =>
      (
        await from.agent
          .post(`/api/v1/organizations/${orgId}/duels`)
          .send({ opponent_username: to.user.username })
          .expect(201)
      ).body.id as string;

    const liveDuels = async (userId: string): Promise<number> =>
      (
        await t.db.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM duels WHERE (challenger_id = $1 OR opponent_id = $1)
           AND status IN ('ready', 'active')`,
          [userId],
        )
      )[0].n;

    it('6.2 a socket of a token bound to A hears of and acts on A’s duels only; a session sees every organization', async () => {
      const orgA = await createOrganization(t, await adult(t), 'Duels token A');
      const orgB = await createOrganization(t, await adult(t), 'Duels token B');
      const p = await publicMember(orgA);
      await addMember(t, orgB, p.user.id, 'student');
      const inB = await publicMember(orgB);
      const inA = await publicMember(orgA);
      const token = await personalToken(t, p, orgA, 'write');
      const tokenSocket = keep(socketTo(t, '/duels', { token, organizationId: orgA }));
      const tokenInbox = new Inbox(tokenSocket);
      await connected(tokenSocket);
      const session = await sessionSocket(p, orgA);
      const sessionInbox = new Inbox(session);

      const duelB = await challenge(inB, orgB, p);
      const duelA = await challenge(inA, orgA, p);
      // The token's socket gets A's challenge first and only; the session's gets both, in order.
      expect((await tokenInbox.take<Json>('duel:challenge')).duel.id).toBe(duelA);
      expect((await sessionInbox.take<Json>('duel:challenge')).duel.id).toBe(duelB);
      expect((await sessionInbox.take<Json>('duel:challenge')).duel.id).toBe(duelA);

      // B's duel made ready over HTTP: the token's socket may neither read nor act on it.
      await p.agent.post(`/api/v1/organizations/${orgB}/duels/${duelB}/accept`).expect(200);
      for (const event of ['duel:state', 'duel:forfeit', 'duel:ready']) {
        expect(await call(tokenSocket, event, { duel_id: duelB })).toMatchObject({
          ok: false,
          error: { code: 'not_found' },
        });
      }
      // The session's socket (bound to A too) may read it: a session sees every organization of the person.
      expect(await call(session, 'duel:state', { duel_id: duelB })).toMatchObject({ ok: true });
    });

    it('6.4 queue:join: 10 a minute per person (the 10th joins), the 11th gets rate_limited', async () => {
      const org = await createOrganization(t, await adult(t), 'Queue limit');
      const p = await publicMember(org);
      // Three sockets of the person (they count together), each under the 20 events a second of one socket.
      const sockets = [await sessionSocket(p, org), await sessionSocket(p, org), await sessionSocket(p, org)];
      for (let i = 1; i <= 10; i++) {
        const socket = sockets[i % 3];
        expect(await call(socket, 'queue:join', {})).toMatchObject({ ok: true });
        expect(await call(socket, 'queue:leave', {})).toEqual({ ok: true });
      }
      const other = await sessionSocket(p, org);
      const error = nextEvent<Json>(other, 'error');
      expect(await call(other, 'queue:join', {})).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
      expect(await error).toMatchObject({ event: 'queue:join', code: 'rate_limited' });
    });

    it('6.4 queue:join answers already_queued before any other work (before looking the course up)', async () => {
      const org = await createOrganization(t, await adult(t), 'Queue order');
      const p = await publicMember(org);
      const socket = await sessionSocket(p, org);
      expect(await call(socket, 'queue:join', {})).toMatchObject({ ok: true });
      const unknownCourse = '00000000-0000-4000-8000-000000000000';
      expect(await call(socket, 'queue:join', { course_id: unknownCourse })).toMatchObject({
        ok: false,
        error: { code: 'already_queued' },
      });
    });

    it('6.4 a queued player who accepts a challenge over HTTP leaves the queue: one live duel at most', async () => {
      const org = await createOrganization(t, await adult(t), 'One live duel');
      const p = await publicMember(org);
      const challenger = await publicMember(org);
      const q = await publicMember(org);
      const pSocket = await sessionSocket(p, org);
      expect(await call(pSocket, 'queue:join', {})).toMatchObject({ ok: true });
      const duel = await challenge(challenger, org, p);
      await p.agent.post(`/api/v1/organizations/${org}/duels/${duel}/accept`).expect(200);
      const qSocket = await sessionSocket(q, org);
      expect(await call(qSocket, 'queue:join', {})).toMatchObject({ ok: true });
      expect(await liveDuels(p.user.id)).toBe(1);
      expect(await liveDuels(q.user.id)).toBe(0);
    });

    it('6.3 a duel forfeited in its first round awards no XP (duel:finished and duel.finished say so)', async () => {
      const org = await createOrganization(t, await adult(t), 'Forfeit farm');
      const a = await publicMember(org);
      const b = await publicMember(org);
      const sa = await sessionSocket(a, org);
      const sb = await sessionSocket(b, org);
      const matched = nextEvent<Json>(sa, 'queue:matched');
      await call(sa, 'queue:join', {});
      await call(sb, 'queue:join', {});
      const duelId = (await matched).duel.id as string;
      const round = nextEvent<Json>(sa, 'duel:round');
      await call(sa, 'duel:ready', { duel_id: duelId });
      await call(sb, 'duel:ready', { duel_id: duelId });
      await round;
      const finished = nextEvent<Json>(sa, 'duel:finished');
      expect(await call(sb, 'duel:forfeit', { duel_id: duelId })).toEqual({ ok: true });
      expect(await finished).toMatchObject({ result: 'win', reason: 'forfeit', xp_awarded: 0 });
      const [event] = await t.db.query<{ payload: Json }[]>(
        `SELECT payload FROM domain_events WHERE name = 'duel.finished' AND payload->>'duel_id' = $1`,
        [duelId],
      );
      expect(event.payload).toMatchObject({ reason: 'forfeit', winner_id: a.user.id, rounds_started: 1 });
    });
  });

  describe('6.5 flashcards', () => {
    let org: string;

    beforeAll(async () => {
      org = await createOrganization(t, await adult(t), 'Flashcards limits');
    });

    async function studying(cardsCount: number): Promise<{ s: SignedIn; cards: string[] }> {
      const s = await member(t, org, 'student');
      const base = `/api/v1/organizations/${org}/flashcards`;
      const deck = (await s.agent.post(`${base}/decks`).send({ title: 'Limits' }).expect(201)).body.id as string;
      const cards: string[] = [];
      for (let i = 0; i < cardsCount; i++) {
        cards.push(
          (
            await s.agent
              .post(`${base}/decks/${deck}/cards`)
              .send({ front_md: `f${i}`, back_md: 'b' })
              .expect(201)
          ).body.id as string,
        );
      }
      return { s, cards };
    }

    it('reviews: 120 a minute per person (the 120th is reviewed), the 121st is 429 with Retry-After', async () => {
      const { s, cards } = await studying(1);
      const review = `/api/v1/organizations/${org}/flashcards/cards/${cards[0]}/reviews`;
      // Grade 1: SM-2 keeps a one-day interval (120 good grades would grow it past any date).
      for (let i = 1; i <= 120; i++) await s.agent.post(review).send({ grade: 1 }).expect(201);
      const refused = await s.agent.post(review).send({ grade: 1 }).expect(429);
      expect(refused.body.error.code).toBe('too_many_requests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const [row] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM flashcard_reviews WHERE user_id = $1`,
        [s.user.id],
      );
      expect(row.n).toBe(120);
    });

    it('a change of scheduler reschedules in a background job (rescheduling until done); 3 a day, the 4th is 429', async () => {
      const { s, cards } = await studying(3);
      const base = `/api/v1/organizations/${org}/flashcards`;
      for (const card of cards) {
        for (const grade of [5, 4, 2]) await s.agent.post(`${base}/cards/${card}/reviews`).send({ grade }).expect(201);
      }
      const settings = '/api/v1/me/flashcards/settings';
      const done = () =>
        waitUntil(async () => !(await s.agent.get(settings).expect(200)).body.rescheduling, {
          what: 'the rescheduling job',
        });
      const toFsrs = await s.agent.put(settings).send({ scheduler: 'fsrs' }).expect(200);
      expect(toFsrs.body).toMatchObject({ scheduler: 'fsrs', rescheduling: true, rescheduled_cards: 3 });
      await done();
      const states = await t.db.query<{ scheduler: string; reviews: number }[]>(
        `SELECT scheduler, reviews FROM flashcard_states WHERE user_id = $1`,
        [s.user.id],
      );
      expect(states).toEqual(Array.from({ length: 3 }, () => ({ scheduler: 'fsrs', reviews: 3 })));
      await s.agent.put(settings).send({ desired_retention: 0.95 }).expect(200);
      await done();
      await s.agent.put(settings).send({ scheduler: 'sm2' }).expect(200);
      await done();
      const refused = await s.agent.put(settings).send({ scheduler: 'fsrs' }).expect(429);
      expect(refused.body.error.code).toBe('too_many_requests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await s.agent.get(settings).expect(200)).body).toMatchObject({ scheduler: 'sm2', rescheduling: false });
      // Other settings stay open, and an unchanged scheduler is not a change.
      await s.agent.put(settings).send({ new_cards_per_day: 7, scheduler: 'sm2' }).expect(200);
    });
    it('a review while the rescheduling job has not reached its card replays that card’s log first', async () => {
      const { s, cards } = await studying(1);
      const review = `/api/v1/organizations/${org}/flashcards/cards/${cards[0]}/reviews`;
      for (const grade of [5, 4, 2]) await s.agent.post(review).send({ grade }).expect(201);
      // A change to FSRS whose job has not run yet: the stored state is still SM-2's.
      await t.db.query(
        `INSERT INTO flashcard_settings (user_id, scheduler, desired_retention, new_cards_per_day, updated_at,
           rescheduling, reschedule_generation)
         VALUES ($1, 'fsrs', 0.9, 20, now(), true, 99)`,
        [s.user.id],
      );
      const res = await s.agent.post(review).send({ grade: 4 }).expect(201);
      expect(res.body).toMatchObject({ scheduler: 'fsrs', state: { reviews: 4 } });
      const [state] = await t.db.query<{ reps: number }[]>(
        `SELECT (fsrs ->> 'reps')::int AS reps FROM flashcard_states WHERE user_id = $1`,
        [s.user.id],
      );
      // FSRS saw the three earlier reviews too, not a new card.
      expect(state.reps).toBe(4);
    });
  });

  describe('6.6 games', () => {
    let org: string;
    let course: MadeCourse;

    beforeAll(async () => {
      const owner = await adult(t);
      org = await createOrganization(t, owner, 'Games limits');
      course = await makeCourse(t, owner.user.id, {
        title: 'Security games course',
        lessons: [{ title: 'G', quiz: quiz(8, 'G') }],
      });
    });

    const served = async (gameId: string): Promise<number> =>
      (
        await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM game_questions WHERE game_id = $1`, [gameId])
      )[0].n;

    it('a game stores the questions it served, not the whole draw', async () => {
      const s = await member(t, org, 'student');
      await enroll(s, org, course.id);
      const base = `/api/v1/organizations/${org}/games`;
      const game = (await s.agent.post(base).send({ mode: 'survival', course_id: course.id }).expect(201)).body;
      const [row] = await t.db.query<{ questions_total: number }[]>(`SELECT questions_total FROM games WHERE id = $1`, [
        game.id,
      ]);
      expect(row.questions_total).toBe(8);
      expect(await served(game.id)).toBe(1);
      const q = game.current_question;
      const answered = await s.agent
        .post(`${base}/${game.id}/answers`)
        .send({ question_id: q.id, option_ids: [q.options[0].id] })
        .expect(200);
      expect(await served(game.id)).toBe(2);
      const next = answered.body.game.current_question;
      expect(next.id).not.toBe(q.id);
      expect((await s.agent.get(`${base}/${game.id}`).expect(200)).body.current_question.id).toBe(next.id);
    });

    it('starting a game: 30 an hour per person (the 30th starts), the 31st is 429', async () => {
      const s = await member(t, org, 'student');
      await enroll(s, org, course.id);
      const base = `/api/v1/organizations/${org}/games`;
      for (let i = 1; i <= 30; i++) await s.agent.post(base).send({ mode: 'risk', course_id: course.id }).expect(201);
      const refused = await s.agent.post(base).send({ mode: 'risk', course_id: course.id }).expect(429);
      expect(refused.body.error.code).toBe('too_many_requests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
  });
});
