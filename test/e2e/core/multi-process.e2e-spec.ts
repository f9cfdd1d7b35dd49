import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import type { AppProcessMessage, AppProcessOptions } from '../../support/app.process';
import { codeFrom } from '../../support/mail-sink';
import { call, connected, Inbox, nextEvent, socketTo } from '../../support/realtime';
import { addMember } from '../../support/tenancy';
import { type S3Server, startS3Server } from '../../support/s3-server';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies read field by field
type Json = Record<string, any>;

const DRAIN_MS = 1500;

/** Generated files live in one object store for every process (an s3rver of the suite), as in production. */
let s3: S3Server | undefined;
function sharedStorage(): Record<string, string> {
  return { ...s3!.env };
}

interface Instance {
  child: ChildProcess;
  baseUrl: string;
  stderr: () => string;
}

interface Person {
  id: string;
  email: string;
  ip: string;
  cookie: string;
}

interface Answer {
  status: number;
  body: Json;
  text: string;
  headers: Headers;
}

/** An HTTP call with a person's cookies and client address (fetch: Node's undici, keep-alive). */
async function http(
  base: string,
  method: string,
  path: string,
  o: { cookie?: string; ip?: string; body?: unknown } = {},
): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(o.cookie ? { cookie: o.cookie } : {}),
      ...(o.ip ? { 'x-forwarded-for': o.ip } : {}),
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
  });
  const text = await res.text();
  let body: Json = {};
  try {
    body = JSON.parse(text) as Json;
  } catch {
    // Not JSON (a CSV download).
  }
  return { status: res.status, body, text, headers: res.headers };
}

function duelQuiz() {
  return {
    passing_score: 50,
    questions: Array.from({ length: 6 }, (_, i) => ({
      prompt: `Multi question ${i + 1}`,
      kind: 'single' as const,
      options: [
        { text: 'Right', correct: true },
        { text: 'Wrong', correct: false },
      ],
    })),
  };
}

/**
 * Several machines (5.2): two API processes (A and B, `PROCESS_JOBS=false`) and one worker, each a process of its
 * own, on one PostgreSQL database, one Redis key space and one file store. This process only holds the fixtures'
 * database access and the SMTP sink the worker sends to; every request goes to A or B over HTTP.
 */
describe('several machines: two API processes and a worker (5.2)', () => {
  let t: TestApp;
  let dir: string;
  let a: Instance;
  let b: Instance;
  let worker: Instance;
  const children: ChildProcess[] = [];
  const sockets: Socket[] = [];
  let owner: Person;
  let org: string;
  let course: MadeCourse;

  async function start(role: 'api' | 'worker', env: Record<string, string>): Promise<Instance> {
    const options: AppProcessOptions = { role, databaseName: t.dbName, suffix: t.suffix, dataDir: dir, env };
    const child = fork(join(__dirname, '..', '..', 'support', 'app.process.ts'), [], {
      cwd: join(__dirname, '..', '..', '..'),
      execArgv: ['--require', join(__dirname, '..', '..', 'support', 'swc-register.js')],
      env: { ...process.env, APP_PROCESS: JSON.stringify(options) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const messages: AppProcessMessage[] = [];
    child.on('message', (m) => messages.push(m as AppProcessMessage));
    const exitedEarly: AppProcessMessage = { type: 'failed', detail: 'exited' };
    const started = await waitUntil(() => messages[0] ?? (child.exitCode !== null ? exitedEarly : null), {
      what: `the ${role} process to start`,
      timeoutMs: 120_000,
    });
    if (started.type === 'failed') throw new Error(`${role} failed to start: ${started.detail} ${stderr}`);
    return { child, baseUrl: started.baseUrl, stderr: () => stderr };
  }

  async function signIn(base: string): Promise<Person> {
    const email = t.nextEmail();
    const ip = t.nextIp();
    const before = t.mail.count();
    expect((await http(base, 'POST', '/api/v1/auth/otp/request', { ip, body: { email } })).status).toBe(200);
    const code = codeFrom(await t.mail.waitForTo(email, { after: before, subject: /código de acceso|sign-in code/ }));
    const res = await fetch(`${base}/api/v1/auth/otp/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ email, code }),
    });
    expect(res.status).toBe(200);
    const user = (await res.json()) as Json;
    const cookie = res.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const person = { id: user.id as string, email, ip, cookie };
    const onboarding = { name: 'Multi Person', locale: 'es', adult_confirmed: true };
    expect((await http(base, 'PUT', '/api/v1/me/onboarding', { ...person, body: onboarding })).status).toBe(200);
    return person;
  }

  async function student(base: string): Promise<Person> {
    const p = await signIn(base);
    await addMember(t, org, p.id, 'student');
    return p;
  }

  function track(socket: Socket): Socket {
    sockets.push(socket);
    return socket;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lp-multi-'));
    s3 = await startS3Server();
    // This process runs no jobs and serves no HTTP: fixtures through its services, mail caught by its sink.
    t = await createTestApp({ worker: true, env: { PROCESS_JOBS: 'false', ...sharedStorage() } });
    const env = {
      // One public address for every instance, as behind a load balancer (tokens name it as their issuer).
      BASE_URL: 'http://api.multi.test',
      ...sharedStorage(),
      SMTP_URL: t.mail.url,
      DUEL_ROUND_MS: '1500',
      DUEL_COUNTDOWN_MS: '150',
      DUEL_RECONNECT_WINDOW_MS: '1500',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    };
    // One first (it fills the compile cache of test/support/swc-register.js), then the other two together.
    a = await start('api', env);
    [b, worker] = await Promise.all([start('api', env), start('worker', env)]);
    owner = await signIn(a.baseUrl);
    const created = await http(a.baseUrl, 'POST', '/api/v1/organizations', { ...owner, body: { name: 'Multi' } });
    expect(created.status).toBe(201);
    org = created.body.organization.id as string;
    course = await makeCourse(t, owner.id, { title: 'Multi course', lessons: [{ title: 'Only lesson' }] });
    await makeCourse(t, owner.id, { title: 'Multi duel course', lessons: [{ title: 'L1', quiz: duelQuiz() }] });
  }, 180_000);

  afterEach(() => {
    for (const s of sockets.splice(0)) s.disconnect();
  });

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await t?.close();
    await s3?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a notification made by the worker reaches a socket held by B; XP counted once', async () => {
    const ann = await student(a.baseUrl);
    const socket = track(socketTo(b.baseUrl, '/notifications', { cookie: ann.cookie }));
    const first = nextEvent<Json>(socket, 'unread_count');
    await connected(socket);
    await first;
    const created = nextEvent<Json>(socket, 'notification:new', 20_000);
    const courses = `/api/v1/organizations/${org}/courses/${course.id}`;
    expect((await http(a.baseUrl, 'POST', `${courses}/enroll`, ann)).status).toBe(201);
    const done = await http(a.baseUrl, 'POST', `${courses}/lessons/${course.lessons[0].id}/complete`, ann);
    expect([200, 201]).toContain(done.status);
    const { notification } = await created;
    expect(notification).toMatchObject({ category: 'course_complete', organization_id: org });
    const xp = await waitUntil(
      async () => {
        const res = await http(b.baseUrl, 'GET', `/api/v1/organizations/${org}/xp`, ann);
        return (res.body.xp as number) >= 110 ? res.body : null;
      },
      { what: 'the XP' },
    );
    expect(xp.xp).toBe(110);
  });

  it('a report requested through A is built by the worker and downloaded through B', async () => {
    const queued = await http(a.baseUrl, 'POST', `/api/v1/organizations/${org}/reports`, {
      ...owner,
      body: { type: 'progress', format: 'csv', lang: 'en' },
    });
    expect(queued.status).toBe(202);
    const done = await waitUntil(
      async () => {
        const res = await http(b.baseUrl, 'GET', `/api/v1/organizations/${org}/reports/${queued.body.id}`, owner);
        return ['completed', 'failed'].includes(res.body.status as string) ? res.body : null;
      },
      { what: 'the report' },
    );
    expect(done.status).toBe('completed');
    const file = await http(b.baseUrl, 'GET', `/api/v1/organizations/${org}/reports/${queued.body.id}/download`, owner);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.text).toContain(course.id);
  });

  it('a duel between a player on A and a player on B plays to the end', async () => {
    const players = await Promise.all(
      [a, b].map(async (instance) => {
        const p = await student(instance.baseUrl);
        const profile = { ...p, body: { public_profile: true } };
        expect((await http(instance.baseUrl, 'PATCH', '/api/v1/me/profile', profile)).status).toBe(200);
        const socket = track(socketTo(instance.baseUrl, '/duels', { cookie: p.cookie, organizationId: org }));
        const inbox = new Inbox(socket);
        await connected(socket);
        return { socket, inbox };
      }),
    );
    const [pa, pb] = players;
    const matched = nextEvent<Json>(pa.socket, 'queue:matched');
    expect(await call(pa.socket, 'queue:join', {})).toMatchObject({ ok: true });
    expect(await call(pb.socket, 'queue:join', {})).toMatchObject({ ok: true });
    const duelId = (await matched).duel.id as string;
    const finishedA = pa.inbox.take<Json>('duel:finished', 30_000);
    const finishedB = pb.inbox.take<Json>('duel:finished', 30_000);
    await call(pa.socket, 'duel:ready', { duel_id: duelId });
    await call(pb.socket, 'duel:ready', { duel_id: duelId });
    for (let n = 1; n <= 5; n++) {
      const round = await pa.inbox.take<Json>('duel:round', 10_000);
      expect((await pb.inbox.take<Json>('duel:round', 10_000)).round).toBe(n);
      const result = pa.inbox.take<Json>('duel:round_result', 10_000);
      // Separate processes on the real clock (one wall clock for all): wait until the round has started.
      const startsAt = new Date(round.starts_at as string).getTime();
      await waitUntil(() => Date.now() > startsAt, { intervalMs: 5, what: `round ${n} to start` });
      const options = round.question.options as Json[];
      const right = options.find((o) => o.text === 'Right')!.id as string;
      const wrong = options.find((o) => o.text !== 'Right')!.id as string;
      await call(pa.socket, 'duel:answer', { duel_id: duelId, round: n, option_ids: [right] });
      await call(pb.socket, 'duel:answer', { duel_id: duelId, round: n, option_ids: [wrong] });
      await result;
    }
    expect(await finishedA).toMatchObject({ result: 'win', reason: 'completed' });
    expect(await finishedB).toMatchObject({ result: 'loss', reason: 'completed' });
  });

  it('a rate limit hit on A holds on B (10 code checks per address per quarter hour: the 11th on B is 429)', async () => {
    const email = t.nextEmail('limited');
    for (let i = 0; i < 10; i++) {
      const base = i % 2 === 0 ? a.baseUrl : b.baseUrl;
      const res = await http(base, 'POST', '/api/v1/auth/otp/verify', {
        ip: t.nextIp(),
        body: { email, code: '000000' },
      });
      expect(res.status).not.toBe(429);
    }
    const past = await http(b.baseUrl, 'POST', '/api/v1/auth/otp/verify', {
      ip: t.nextIp(),
      body: { email, code: '0' },
    });
    expect(past.status).toBe(429);
    expect(past.body.error.code).toBe('too_many_requests');
    expect(Number(past.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a cache entry invalidated on A is fresh on B', async () => {
    const p = await signIn(a.baseUrl);
    // B caches the account (every authenticated request reads it), then A changes it.
    expect((await http(b.baseUrl, 'GET', '/api/v1/auth/me', p)).body.name).toBe('Multi Person');
    const renamed = await http(a.baseUrl, 'PATCH', '/api/v1/me/profile', { ...p, body: { name: 'Renamed On A' } });
    expect(renamed.status).toBe(200);
    expect((await http(b.baseUrl, 'GET', '/api/v1/auth/me', p)).body.name).toBe('Renamed On A');
  });

  it('rolling restart: A gets SIGTERM under steady load and no request fails', async () => {
    const reader = owner;
    const targets = [a.baseUrl, b.baseUrl];
    const failures: string[] = [];
    const servedBy = new Map<string, number>();
    let stopping = false;
    let sent = 0;
    let closeAnswers = 0;
    // The load balancer of the test: round robin over the instances whose readiness probe (every 100 ms) last
    // answered 200, as a balancer's health check does; a refused connection is tried on the next instance.
    const inRotation = new Set(targets);
    const probing = (async () => {
      while (!stopping) {
        for (const base of targets) {
          const ok = await fetch(`${base}/ready`).then(
            (r) => r.status === 200,
            () => false,
          );
          if (ok) inRotation.add(base);
          else inRotation.delete(base);
        }
        await new Promise((r) => setTimeout(r, 100)); // the balancer's health-check period
      }
    })();
    const one = async (n: number): Promise<void> => {
      const pool = inRotation.size > 0 ? targets.filter((base) => inRotation.has(base)) : targets;
      for (let attempt = 0; attempt < pool.length; attempt++) {
        const base = pool[(n + attempt) % pool.length];
        try {
          const res = await http(base, 'GET', '/api/v1/auth/me', { cookie: reader.cookie, ip: reader.ip });
          if (res.status !== 200) failures.push(`${base} ${res.status} ${res.text.slice(0, 200)}`);
          if (res.headers.get('connection') === 'close') closeAnswers++;
          servedBy.set(base, (servedBy.get(base) ?? 0) + 1);
          return;
        } catch (err) {
          const code = ((err as Error & { cause?: { code?: string } }).cause ?? {}).code;
          if (code === 'ECONNREFUSED') continue;
          failures.push(`${base} ${code ?? String(err)}`);
          return;
        }
      }
      failures.push('no instance accepted the connection');
    };
    const loops = Array.from({ length: 4 }, async (_, i) => {
      for (let n = i; !stopping; n += 4) {
        sent++;
        await one(n);
      }
    });
    // A socket on A: when A stops, its connection closes under it (a transport close, which the client answers by
    // reconnecting, through the balancer, elsewhere), not an `io server disconnect`, after which it would not.
    const socket = track(socketTo(a.baseUrl, '/notifications', { cookie: reader.cookie }));
    await connected(socket);
    const dropped = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
    await waitUntil(() => sent > 40, { what: 'steady load' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      a.child.once('exit', (_c, signal) => resolve(signal)),
    );
    a.child.kill('SIGTERM');
    // At once: the readiness probe says no, while A still serves.
    const ready = await waitUntil(
      async () => {
        const res = await http(a.baseUrl, 'GET', '/ready');
        return res.status === 503 ? res : null;
      },
      { what: '/ready to answer 503', timeoutMs: DRAIN_MS },
    );
    expect(ready.body.error.code).toBe('service_unavailable');
    expect(await dropped).toBe('transport close');
    expect(await exited).toBe('SIGTERM');
    const afterExit = sent;
    await waitUntil(() => sent > afterExit + 40, { what: 'load after the restart' });
    stopping = true;
    await Promise.all([...loops, probing]);
    expect(failures).toEqual([]);
    expect(closeAnswers).toBeGreaterThan(0);
    expect(servedBy.get(a.baseUrl)).toBeGreaterThan(0);
    expect(servedBy.get(b.baseUrl)).toBeGreaterThan(0);
    // The worker and B are unaffected.
    expect(worker.child.exitCode).toBeNull();
    expect((await http(b.baseUrl, 'GET', '/ready')).status).toBe(200);
  });
});
