// npm run bench:duels: 1 000 concurrent duels (2 000 Socket.IO clients) on one instance of the built service, with
// Redis (the production setup: Redis streams adapter, matchmaking and duel state in Redis).
//  - Every client connects to /duels with a personal token (auth.token), joins the matchmaking queue, is paired,
//    emits duel:ready and plays 5 rounds: each answer is sent at a random moment of the first second of the round.
//  - Measured: the answer-to-result round trip (from the emit of the round's last answer to that client receiving
//    duel:round_result: the server closes the round on the second answer, scores it, stores it in PostgreSQL and
//    emits through the adapter), the answer acknowledgement, and, as the baseline in the same run, the round trip of
//    an event the server answers without any work (an unknown event: the realtime core's ack path), idle (before the
//    duels) and under load. Memory: the service's RSS before and after connecting the 2 000 sockets.
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import pg from 'pg';
import { io } from 'socket.io-client';
import { freePort, scratchDatabase, startMailSink, startService, stop } from './lib.mjs';

const require = createRequire(import.meta.url);
const { formatToken, PERSONAL_TOKEN } = require('../dist/src/core/auth/token-format.js');
const { createHash } = require('node:crypto');

const DUELS = Number(process.env.BENCH_DUELS ?? 1000);
const CLIENTS = DUELS * 2;
const EDITOR = 'editor.duels@bench.test';
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : 0;
};
const fmt = (xs) =>
  `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${pct(xs, 100).toFixed(1)} ms (n=${xs.length})`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

const db = await scratchDatabase('duels');
const mail = await startMailSink();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:duels:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: {
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'warn',
    PLATFORM_ADMIN_EMAILS: EDITOR,
    DUEL_COUNTDOWN_MS: '500',
    DUEL_ROUND_MS: '5000',
    CORS_ORIGINS: 'http://localhost:3000',
    // BENCH_SERVICE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the service.
    ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
  },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const sockets = [];

async function signIn(email) {
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': '198.18.0.1' };
  const code = mail.nextCode(email);
  const req = await fetch(`${base}/api/v1/auth/otp/request`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email }),
  });
  if (req.status !== 200) throw new Error(`otp/request answered ${req.status}`);
  const res = await fetch(`${base}/api/v1/auth/otp/verify`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, code: await code }),
  });
  if (res.status !== 200) throw new Error(`otp/verify answered ${res.status}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { cookie, id: (await res.json()).id };
}
async function call(who, method, path, body, expected) {
  const res = await fetch(base + path, {
    method,
    headers: { cookie: who.cookie, 'x-forwarded-for': '198.18.0.1', 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}
function connect(token, orgId) {
  return new Promise((resolve, reject) => {
    const s = io(`${base}/duels`, {
      path: '/api/v1/socket.io',
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: { token, organization_id: orgId },
    });
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}
const ack = (s, event, payload) => s.timeout(30_000).emitWithAck(event, payload);

try {
  const owner = await signIn(`owner.${Date.now()}@bench.test`);
  await call(owner, 'PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'en', adult_confirmed: true }, 200);
  const orgId = (await call(owner, 'POST', '/api/v1/organizations', { name: 'Duel Bench' }, 201)).organization.id;
  const editor = await signIn(EDITOR);
  const course = await call(
    editor,
    'POST',
    '/api/v1/editor/courses',
    { title: 'Duel bench', language: 'en', level: 'beginner' },
    201,
  );
  await call(
    editor,
    'POST',
    `/api/v1/editor/courses/${course.id}/lessons`,
    {
      title: 'Lesson',
      quiz: {
        passing_score: 50,
        questions: Array.from({ length: 10 }, (_, i) => ({
          prompt: `Question ${i + 1}`,
          kind: 'single',
          options: [0, 1, 2, 3].map((j) => ({ text: `Option ${j + 1}`, correct: j === 0 })),
        })),
      },
    },
    201,
  );
  await call(editor, 'POST', `/api/v1/editor/courses/${course.id}/publish`, undefined, 200);

  // The players and their personal tokens are written directly (their own routes are not what is measured); the
  // tokens are checked at each handshake by the service's own strategy.
  const stamp = Date.now().toString(36);
  const { rows: users } = await client.query(
    `INSERT INTO users (email, username, name, public_profile)
     SELECT 'p' || g || '.${stamp}@bench.test', 'p${stamp}' || g, 'Player ' || g, true FROM generate_series(1, $1) g
     RETURNING id`,
    [CLIENTS],
  );
  const ids = users.map((u) => u.id);
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role) SELECT $1, unnest($2::uuid[]), 'student'`,
    [orgId, ids],
  );
  const tokens = ids.map(() => formatToken(PERSONAL_TOKEN, randomBytes(32).toString('base64url')));
  await client.query(
    `INSERT INTO api_keys (user_id, organization_id, name, prefix, token_hash, access, created_at, expires_at)
     SELECT u, $1, 'bench', 'svc_live_', h, 'write', now(), now() + interval '1 day'
     FROM unnest($2::uuid[], $3::text[]) AS t(u, h)`,
    [orgId, ids, tokens.map((t) => createHash('sha256').update(t).digest('hex'))],
  );

  const rssBefore = rss(service.pid);
  const connectStart = performance.now();
  for (let i = 0; i < CLIENTS; i += 100) {
    const batch = await Promise.all(tokens.slice(i, i + 100).map((t) => connect(t, orgId)));
    sockets.push(...batch);
  }
  const connectMs = performance.now() - connectStart;
  await sleep(2000);
  const rssAfter = rss(service.pid);

  // Baseline: the ack round trip of an event answered without work, idle.
  const pingIdle = [];
  for (let i = 0; i < 400; i++) {
    const s = sockets[(i * 5) % sockets.length];
    const t0 = performance.now();
    await ack(s, 'bench:ping', {});
    pingIdle.push(performance.now() - t0);
    if (i % 20 === 19) await sleep(50); // stay under the 20 events/s per socket
  }

  // The duels.
  const roundTrips = [];
  const answerAcks = [];
  const pingLoaded = [];
  const errors = {};
  let finished = 0;
  let started = 0;
  const lastAnswer = new Map(); // duel:round -> { socket index, t }
  const done = new Promise((resolve) => {
    sockets.forEach((s, idx) => {
      let offset = 0; // server_now - local now
      s.on('queue:matched', async ({ duel }) => {
        const r = await ack(s, 'duel:ready', { duel_id: duel.id });
        if (!r.ok) errors[r.error.code] = (errors[r.error.code] ?? 0) + 1;
      });
      s.on('duel:start', () => started++);
      s.on('duel:round', (round) => {
        offset = new Date(round.server_now).getTime() - Date.now();
        const startsIn = new Date(round.starts_at).getTime() - offset - Date.now();
        setTimeout(
          async () => {
            const key = `${round.duel_id}:${round.round}`;
            const t0 = performance.now();
            const prev = lastAnswer.get(key);
            lastAnswer.set(key, { idx, t: t0, first: !prev });
            const right = Math.random() < 0.6;
            const option = right
              ? round.question.options.find((o) => o.text === 'Option 1')
              : round.question.options[1];
            const a = await ack(s, 'duel:answer', {
              duel_id: round.duel_id,
              round: round.round,
              option_ids: [option.id],
            });
            answerAcks.push(performance.now() - t0);
            if (!a.ok) errors[a.error.code] = (errors[a.error.code] ?? 0) + 1;
          },
          Math.max(0, startsIn) + 20 + Math.random() * 1000,
        );
      });
      s.on('duel:round_result', (r) => {
        const last = lastAnswer.get(`${r.duel_id}:${r.round}`);
        // The round closed on the second answer: measured by the client that sent it.
        if (last && last.idx === idx && !last.first) roundTrips.push(performance.now() - last.t);
      });
      s.on('duel:finished', () => {
        finished++;
        if (finished === CLIENTS) resolve();
      });
    });
  });
  const playStart = performance.now();
  const joins = await Promise.all(sockets.map((s) => ack(s, 'queue:join', {})));
  for (const j of joins) if (!j.ok) errors[j.error.code] = (errors[j.error.code] ?? 0) + 1;
  // The baseline again, under load, from a few clients.
  const probe = (async () => {
    for (let i = 0; finished < CLIENTS && i < 2000; i++) {
      const s = sockets[(i * 7) % sockets.length];
      const t0 = performance.now();
      await ack(s, 'bench:ping', {}).catch(() => undefined);
      pingLoaded.push(performance.now() - t0);
      await sleep(25);
    }
  })();
  await Promise.race([done, sleep(180_000)]);
  const playMs = performance.now() - playStart;
  await probe;
  const { rows: counts } = await client.query(`SELECT status, count(*)::int AS n FROM duels GROUP BY status`);
  const { rows: rounds } = await client.query(`SELECT count(*)::int AS n FROM duel_rounds`);

  console.log(
    `Duels benchmark (${new Date().toISOString()}), load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, ${DUELS} duels / ${CLIENTS} sockets, one instance + Redis`,
  );
  console.log(
    `  connect ${CLIENTS} sockets: ${(connectMs / 1000).toFixed(1)} s; duels started ${started / 2}, finished ${finished / 2} in ${(playMs / 1000).toFixed(1)} s`,
  );
  console.log(`  database: ${counts.map((c) => `${c.status} ${c.n}`).join(', ')}; rounds stored ${rounds[0].n}`);
  console.log(
    `  memory: RSS ${(rssBefore / 1048576).toFixed(0)} MB -> ${(rssAfter / 1048576).toFixed(0)} MB, ${((rssAfter - rssBefore) / CLIENTS / 1024).toFixed(1)} KB per connected socket`,
  );
  console.log(`  baseline ack (no work), idle:       ${fmt(pingIdle)}`);
  console.log(`  baseline ack (no work), under load: ${fmt(pingLoaded)}`);
  console.log(`  answer ack:                         ${fmt(answerAcks)}`);
  console.log(`  answer -> round_result round trip:  ${fmt(roundTrips)}`);
  console.log(`  errors: ${JSON.stringify(errors)}`);
} finally {
  for (const s of sockets) s.disconnect();
  await client.end();
  await stop(service);
  await mail.close();
  await db.drop();
}
