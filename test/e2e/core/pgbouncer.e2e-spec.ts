import { Client } from 'pg';
import type { Socket } from 'socket.io-client';
import { PoolQueries } from '@/core/database/pool-queries';
import { DuelTiming } from '@/modules/practice/duels/testing';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import { settle } from '../../support/engagement';
import { member } from '../../support/exams';
import { startPgBouncer, type PgBouncer } from '../../support/pgbouncer';
import { accessCookie, call, connected, Inbox, nextEvent, socketTo } from '../../support/realtime';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { databaseUrl } from '../../support/test-env';
import { waitUntil } from '../../support/wait';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies read field by field
type Json = Record<string, any>;

function duelQuiz() {
  return {
    passing_score: 50,
    questions: Array.from({ length: 6 }, (_, i) => ({
      prompt: `Pooled question ${i + 1}`,
      kind: 'single' as const,
      options: [
        { text: 'Right', correct: true },
        { text: 'Wrong', correct: false },
      ],
    })),
  };
}

/**
 * The main flows through PgBouncer 1.18 in transaction mode (5.2): every query of the application goes through
 * the pooler, which hands each transaction whatever server connection is free (a pool of 3 here, fewer than the
 * application's 5, so consecutive transactions of one client do change server connections). Migrations and
 * session work use DATABASE_DIRECT_URL; named statements are off (DATABASE_NAMED_STATEMENTS=false).
 */
describe('PgBouncer in transaction mode (5.2)', () => {
  let bouncer: PgBouncer;
  let t: TestApp;
  let owner: SignedIn;
  let org: string;
  let course: MadeCourse;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    bouncer = await startPgBouncer({ poolSize: 3 });
    t = await createTestApp({
      overrides: [{ provide: DuelTiming, useValue: new DuelTiming(1500, 150, 1500, 150, 1200) }],
      databaseEnv: (name) => ({
        DATABASE_URL: bouncer.url(name),
        DATABASE_DIRECT_URL: databaseUrl(name),
        DATABASE_NAMED_STATEMENTS: 'false',
      }),
    });
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Pooled');
    course = await makeCourse(t, owner.user.id, { title: 'Pooled course', lessons: [{ title: 'Only lesson' }] });
    await makeCourse(t, owner.user.id, { title: 'Duel course', lessons: [{ title: 'L1', quiz: duelQuiz() }] });
  });

  afterEach(() => {
    for (const s of sockets.splice(0)) s.disconnect();
  });

  afterAll(async () => {
    await t?.close();
    await bouncer?.stop();
  });

  it('the application really talks to PgBouncer, with named statements off', async () => {
    const admin = new Client({ connectionString: bouncer.url('pgbouncer') });
    await admin.connect();
    try {
      // SHOW CLIENTS lists the application's connections to the pooler (database = this file's copy).
      const clients = (await admin.query<{ database: string }>('SHOW CLIENTS')).rows;
      expect(clients.filter((c) => c.database === t.dbName).length).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    expect(t.app.get(PoolQueries).named).toBe(false);
  });

  it('a named statement breaks behind this PgBouncer (why DATABASE_NAMED_STATEMENTS=false exists)', async () => {
    const a = new Client({ connectionString: bouncer.url(t.dbName) });
    const holders = Array.from({ length: 8 }, () => new Client({ connectionString: bouncer.url(t.dbName) }));
    await a.connect();
    for (const h of holders) await h.connect();
    try {
      // The statement is prepared on the one server connection a's transaction holds.
      await a.query('BEGIN');
      await a.query({ name: 'probe', text: 'SELECT 1 AS one' });
      await a.query('COMMIT');
      // Other clients in open transactions hold 1, 2, ... server connections (the application's own pool shares
      // them, so which one is idle is not known): once they hold every idle one, PgBouncer gives a's next use
      // another server connection, which never saw the statement.
      const errors: string[] = [];
      for (let k = 1; k <= holders.length && errors.length === 0; k++) {
        for (const h of holders.slice(0, k)) await h.query('BEGIN');
        await a.query({ name: 'probe', text: 'SELECT 1 AS one' }).catch((err: Error) => errors.push(err.message));
        for (const h of holders.slice(0, k)) await h.query('COMMIT');
      }
      expect(errors.some((m) => /prepared statement "probe" does not exist/.test(m))).toBe(true);
    } finally {
      await a.end();
      for (const h of holders) await h.end();
    }
  });

  it('sign-in, enrollment, completion with XP and its notification', async () => {
    const student = await member(t, org);
    await student.agent.post(`/api/v1/organizations/${org}/courses/${course.id}/enroll`).expect(201);
    const lesson = course.lessons[0];
    await student.agent
      .post(`/api/v1/organizations/${org}/courses/${course.id}/lessons/${lesson.id}/complete`)
      .expect((res) => expect([200, 201]).toContain(res.status));
    await settle(t);
    const xp = await waitUntil(
      async () => {
        const body = (await student.agent.get(`/api/v1/organizations/${org}/xp`).expect(200)).body as Json;
        return body.xp >= 110 ? body : null;
      },
      { what: 'XP of the lesson and the course' },
    );
    expect(xp.xp).toBe(110);
    const list = await waitUntil(
      async () => {
        const body = (await student.agent.get('/api/v1/notifications').expect(200)).body as Json;
        return (body.items as Json[]).find((n) => n.category === 'course_complete') ? body : null;
      },
      { what: 'the course_complete notification' },
    );
    expect(list.items.find((n: Json) => n.category === 'course_complete')).toMatchObject({ organization_id: org });
  });

  it('a whole duel through the pooler', async () => {
    const join = async (s: SignedIn) => {
      await s.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
      const socket = socketTo(t, '/duels', { cookie: await accessCookie(s), organizationId: org });
      sockets.push(socket);
      const inbox = new Inbox(socket);
      await connected(socket);
      return { socket, inbox };
    };
    const a = await join(await member(t, org));
    const b = await join(await member(t, org));
    const matched = nextEvent<Json>(a.socket, 'queue:matched');
    await call(a.socket, 'queue:join', {});
    await call(b.socket, 'queue:join', {});
    const duelId = (await matched).duel.id as string;
    const finishedA = a.inbox.take<Json>('duel:finished', 30_000);
    await call(a.socket, 'duel:ready', { duel_id: duelId });
    await call(b.socket, 'duel:ready', { duel_id: duelId });
    for (let n = 1; n <= 5; n++) {
      const round = await a.inbox.take<Json>('duel:round', 10_000);
      await b.inbox.take<Json>('duel:round', 10_000);
      const result = a.inbox.take<Json>('duel:round_result', 10_000);
      // The round starts when the app's clock says so: move it there instead of waiting.
      const ahead = new Date(round.starts_at as string).getTime() - t.clock.nowMs();
      if (ahead >= 0) t.clock.advance(ahead + 1);
      const right = (round.question.options as Json[]).find((o) => o.text === 'Right')!.id as string;
      const wrong = (round.question.options as Json[]).find((o) => o.text !== 'Right')!.id as string;
      await call(a.socket, 'duel:answer', { duel_id: duelId, round: n, option_ids: [right] });
      await call(b.socket, 'duel:answer', { duel_id: duelId, round: n, option_ids: [wrong] });
      await result;
    }
    expect(await finishedA).toMatchObject({ result: 'win', reason: 'completed' });
  });

  it('a report is built and downloaded', async () => {
    const queued = await owner.agent
      .post(`/api/v1/organizations/${org}/reports`)
      .send({ type: 'progress', format: 'csv', lang: 'en' })
      .expect(202);
    const done = await waitUntil(
      async () => {
        const res = await owner.agent.get(`/api/v1/organizations/${org}/reports/${queued.body.id}`).expect(200);
        return ['completed', 'failed'].includes(res.body.status as string) ? (res.body as Json) : null;
      },
      { what: 'the report' },
    );
    expect(done.status).toBe('completed');
    const file = await owner.agent.get(`/api/v1/organizations/${org}/reports/${queued.body.id}/download`).expect(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.text).toContain(course.id);
  });
});
