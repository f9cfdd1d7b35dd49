// npm run bench:exams: 500 learners autosaving during one exam, against /version of the same service in the same run.
//  1. Scenario (open loop, the product's case): each of 500 signed-in learners, on a connection of their own, saves
//     one answer every 5 s (a random question of their session, a random option, their next seq), staggered over the
//     first 5 s: 100 saves/s offered. Beside it, GET /version at the same rate on its own connections. Latency is
//     measured from each request's scheduled time (no coordinated omission). Afterwards every acknowledged save is
//     checked against the database: the stored seq of each (session, question) must be the highest one acknowledged.
//  2. Capacity (closed loop): autocannon, 32 connections, autosave rotating over the 500 learners, alternated with
//     the same autosave statement run directly through pg (the service's pool size, 32 concurrent loops) and with
//     GET /version, 10 s x 3 rounds (median).
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, median, scratchDatabase, startMailSink, startService, stop } from './lib.mjs';

const require = createRequire(import.meta.url);
const pct = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;

// ---- load generator modes (their own process): `--scenario <file>` and `--capacity <file>` ----
if (process.argv[2] === '--scenario') {
  const { base, learners, periodMs, durationMs } = JSON.parse(readFileSync(process.argv[3], 'utf8'));
  const url = new URL(base);
  const send = (agent, method, path, headers, body) =>
    new Promise((resolve) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: {
            ...headers,
            ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode, text }));
        },
      );
      req.on('error', () => resolve({ status: 0, text: '' }));
      if (body) req.write(body);
      req.end();
    });
  const saves = [];
  const probes = [];
  const statuses = {};
  const acked = []; // [learner, question, seq] of every 200
  const timers = [];
  const inflight = new Set();
  const track = (p) => {
    inflight.add(p);
    p.finally(() => inflight.delete(p));
  };
  // Learner i saves at start + (i / N + k) * period: the n-th save of the run is learner n % N's, due at
  // start + n * period / N. One ticker fires every request that is due (catching up when the process was busy), and
  // latency counts from the due time, so a slow server is never hidden by a slowed-down generator.
  const step = periodMs / learners.length;
  for (const l of learners) {
    l.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    l.seq = 0;
  }
  const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const probeStatuses = {};
  const save = (i, due) => {
    const l = learners[i];
    const q = l.questions[Math.floor(Math.random() * l.questions.length)];
    const option = q.options[Math.floor(Math.random() * q.options.length)];
    const seq = ++l.seq;
    const body = JSON.stringify({ option_ids: [option], seq });
    track(
      send(l.agent, 'PUT', `${l.path}/answers/${q.id}`, { cookie: l.cookie, 'x-forwarded-for': l.ip }, body).then(
        (r) => {
          saves.push(performance.now() - due);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          if (r.status === 200) acked.push([i, q.id, seq]);
        },
      ),
    );
  };
  const probe = (due) =>
    track(
      send(probeAgent, 'GET', '/version', {}).then((r) => {
        probes.push(performance.now() - due);
        probeStatuses[r.status] = (probeStatuses[r.status] ?? 0) + 1;
      }),
    );
  const started = performance.now();
  const total = Math.round(durationMs / step);
  let next = 0;
  await new Promise((done) => {
    timers.push(
      setInterval(() => {
        const now = performance.now();
        for (; next < total && started + next * step <= now; next++) {
          const due = started + next * step;
          save(next % learners.length, due);
          probe(due);
        }
        if (next >= total) done();
      }, 1),
    );
  });
  for (const t of timers) clearInterval(t);
  await Promise.all([...inflight]);
  const elapsed = durationMs / 1000;
  const summary = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return {
      count: s.length,
      rps: s.length / elapsed,
      p50: pct(s, 50),
      p95: pct(s, 95),
      p99: pct(s, 99),
      max: s[s.length - 1] ?? 0,
    };
  };
  writeFileSync(
    `${process.argv[3]}.out`,
    JSON.stringify({ elapsed, saves: summary(saves), probes: summary(probes), statuses, probeStatuses, acked }),
  );
  process.exit(0);
}

if (process.argv[2] === '--sql') {
  // The database alone: the service's own autosave statement through pg, as many clients as the service's pool,
  // driven by `connections` concurrent loops for `duration` seconds.
  const { dbUrl, sql, learners, organizationId, examId, connections, duration, poolSize, graceMs, seqBase } =
    JSON.parse(readFileSync(process.argv[3], 'utf8'));
  const pool = new pg.Pool({ connectionString: dbUrl, max: poolSize });
  const latencies = [];
  let n = 0;
  let errors = 0;
  const end = performance.now() + duration * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const l = learners[n++ % learners.length];
        l.seq = (l.seq ?? seqBase) + 1;
        const q = l.questions[l.seq % l.questions.length];
        const started = performance.now();
        try {
          const r = await pool.query({
            name: 'bench.save_answer',
            text: sql,
            values: [
              l.session,
              organizationId,
              examId,
              q.id,
              l.userId,
              [q.options[l.seq % q.options.length]],
              l.seq,
              new Date(),
              graceMs,
            ],
          });
          if (r.rows[0]?.seq === null || r.rows[0]?.seq === undefined) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - started);
      }
    }),
  );
  await pool.end();
  const sorted = latencies.sort((a, b) => a - b);
  writeFileSync(
    `${process.argv[3]}.out`,
    JSON.stringify({
      rps: sorted.length / duration,
      p50: Math.round(pct(sorted, 50)),
      p99: Math.round(pct(sorted, 99)),
      non2xx: 0,
      errors,
    }),
  );
  process.exit(0);
}

if (process.argv[2] === '--capacity') {
  const autocannon = require('autocannon');
  const { base, learners, target, connections, duration, seqBase } = JSON.parse(readFileSync(process.argv[3], 'utf8'));
  let n = 0;
  const result = await autocannon({
    url: base,
    connections,
    duration,
    requests: [
      target === 'version'
        ? { method: 'GET', path: '/version' }
        : {
            method: 'PUT',
            setupRequest: (req) => {
              const l = learners[n++ % learners.length];
              l.seq = (l.seq ?? seqBase) + 1;
              const q = l.questions[l.seq % l.questions.length];
              return {
                ...req,
                path: `${l.path}/answers/${q.id}`,
                headers: {
                  ...req.headers,
                  cookie: l.cookie,
                  'x-forwarded-for': l.ip,
                  'content-type': 'application/json',
                },
                body: JSON.stringify({ option_ids: [q.options[l.seq % q.options.length]], seq: l.seq }),
              };
            },
          },
    ],
  });
  writeFileSync(
    `${process.argv[3]}.out`,
    JSON.stringify({
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    }),
  );
  process.exit(0);
}

/** Runs a load generator in its own process; its result comes back through a file (large, and complete on exit). */
function generator(mode, input) {
  const file = join(os.tmpdir(), `lp-bench-exams-${process.pid}-${mode}.json`);
  writeFileSync(file, JSON.stringify(input));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['bench/exams.mjs', `--${mode}`, file], (err) => {
      try {
        if (err) return reject(err);
        resolve(JSON.parse(readFileSync(`${file}.out`, 'utf8')));
      } catch (parseErr) {
        reject(parseErr);
      } finally {
        rmSync(file, { force: true });
        rmSync(`${file}.out`, { force: true });
      }
    });
  });
}

// ---- the orchestrator ----
const LEARNERS = Number(process.env.BENCH_LEARNERS ?? 500);
const PERIOD_MS = Number(process.env.BENCH_PERIOD_MS ?? 5_000);
const SCENARIO_S = Number(process.env.BENCH_SCENARIO_SECONDS ?? 60);
const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 40);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const EDITOR = 'editor@bench.test';
// Profiling the autosave alone (with BENCH_SERVICE_NODE_OPTIONS): skip the baselines of the capacity part.
const ONLY_AUTOSAVE = process.env.BENCH_ONLY_AUTOSAVE === '1';

const db = await scratchDatabase('exams');
const mail = await startMailSink();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:exams:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: {
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'warn',
    PLATFORM_ADMIN_EMAILS: EDITOR,
    // e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the service alone
    ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
  },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();

let ipCounter = 0;
const nextIp = () => {
  ipCounter++;
  return `198.18.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};
async function signIn(email) {
  const ip = nextIp();
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': ip };
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
  return { cookie, ip, id: (await res.json()).id };
}
async function call(who, method, path, body, expected) {
  const res = await fetch(base + path, {
    method,
    headers: { cookie: who.cookie, 'x-forwarded-for': who.ip, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}
async function pool(items, size, work) {
  const queue = [...items.entries()];
  const out = [];
  await Promise.all(
    Array.from({ length: size }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) out[next[0]] = await work(next[1], next[0]);
    }),
  );
  return out;
}

try {
  const seedStart = performance.now();
  const owner = await signIn(`owner.${Date.now()}@bench.test`);
  await call(owner, 'PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'en', adult_confirmed: true }, 200);
  const orgId = (await call(owner, 'POST', '/api/v1/organizations', { name: 'Exam Bench' }, 201)).organization.id;
  const editor = await signIn(EDITOR);
  const course = await call(
    editor,
    'POST',
    '/api/v1/editor/courses',
    { title: 'Bench course', language: 'en', level: 'beginner' },
    201,
  );
  await call(editor, 'POST', `/api/v1/editor/courses/${course.id}/lessons`, { title: 'Lesson' }, 201);
  await call(editor, 'POST', `/api/v1/editor/courses/${course.id}/publish`, undefined, 200);
  const exam = await call(
    editor,
    'POST',
    `/api/v1/editor/courses/${course.id}/exams`,
    {
      title: 'Bench exam',
      duration_minutes: 120,
      passing_score: 50,
      questions_per_attempt: QUESTIONS,
      status: 'published',
      questions: Array.from({ length: QUESTIONS }, (_, i) => ({
        prompt: `Question ${i + 1}: which option is right?`,
        kind: 'single',
        options: [0, 1, 2, 3].map((j) => ({ text: `Option ${j + 1} of question ${i + 1}`, correct: j === 0 })),
      })),
    },
    201,
  );
  await call(
    owner,
    'POST',
    `/api/v1/organizations/${orgId}/exams/${exam.id}/windows`,
    { opens_at: new Date(Date.now() - 60_000).toISOString() },
    201,
  );

  // The learners sign in through the public API (their cookies are what the load sends); membership and enrollment
  // are written directly (their own routes are not what is measured), then each starts a session through the API.
  const signedIn = await pool(Array.from({ length: LEARNERS }), 16, (_, i) =>
    signIn(`learner${i}.${Date.now()}@bench.test`),
  );
  const ids = signedIn.map((l) => l.id);
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role) SELECT $1, unnest($2::uuid[]), 'student'`,
    [orgId, ids],
  );
  await client.query(
    `INSERT INTO enrollments (organization_id, user_id, course_id) SELECT $1, unnest($2::uuid[]), $3`,
    [orgId, ids, course.id],
  );
  const sessionsPath = `/api/v1/organizations/${orgId}/exams/${exam.id}/sessions`;
  const learners = await pool(signedIn, 16, async (l) => {
    const s = await call(l, 'POST', sessionsPath, undefined, 201);
    return {
      cookie: l.cookie,
      ip: l.ip,
      userId: l.id,
      path: `${sessionsPath}/${s.id}`,
      session: s.id,
      questions: s.questions.map((q) => ({ id: q.id, options: q.options.map((o) => o.id) })),
    };
  });
  await client.query('VACUUM ANALYZE');
  const seedMs = performance.now() - seedStart;

  // ---- 1. scenario
  const scenario = await generator('scenario', { base, learners, periodMs: PERIOD_MS, durationMs: SCENARIO_S * 1000 });
  const highest = new Map();
  for (const [i, q, seq] of scenario.acked) {
    const key = `${learners[i].session}:${q}`;
    highest.set(key, Math.max(highest.get(key) ?? 0, seq));
  }
  const stored = await client.query(
    `SELECT session_id || ':' || question_id AS key, seq::float8 AS seq FROM exam_answers WHERE session_id = ANY($1::uuid[])`,
    [learners.map((l) => l.session)],
  );
  const storedSeq = new Map(stored.rows.map((r) => [r.key, r.seq]));
  let lost = 0;
  for (const [key, seq] of highest) if (storedSeq.get(key) !== seq) lost++;

  // ---- 2. capacity
  const { SAVE_ANSWER_SQL } = require('../dist/src/modules/learning/exams/exam-sessions.repository.js');
  const capacity = { autosave: [], sql: [], version: [] };
  for (let r = 0; r < rounds; r++) {
    // Every run saves above every seq before it, so each save writes (a stale seq would take the cheaper path).
    const seqBase = (r + 1) * 10_000_000;
    capacity.autosave.push(
      await generator('capacity', { base, learners, target: 'autosave', connections, duration, seqBase }),
    );
    if (!ONLY_AUTOSAVE)
      capacity.sql.push(
        await generator('sql', {
          dbUrl: db.url,
          sql: SAVE_ANSWER_SQL,
          learners,
          organizationId: orgId,
          examId: exam.id,
          connections,
          duration,
          poolSize: 10,
          graceMs: 2000,
          seqBase: seqBase + 5_000_000,
        }),
      );
    if (!ONLY_AUTOSAVE) {
      capacity.version.push(await generator('capacity', { base, learners, target: 'version', connections, duration }));
    }
  }
  const med = (runs, k) => (runs.length ? median(runs.map((x) => x[k])) : NaN);

  const f = (x) => x.toFixed(1).padStart(7);
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores; ${LEARNERS} learners, ${QUESTIONS} questions each; seed ${(seedMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `\n1. Scenario: one save per learner every ${PERIOD_MS / 1000} s for ${scenario.elapsed.toFixed(0)} s (open loop), /version at the same rate beside it`,
  );
  console.log('target                         requests   req/s  p50 ms  p95 ms  p99 ms  max ms');
  for (const [name, s] of [
    ['PUT .../answers/{question_id}', scenario.saves],
    ['GET /version', scenario.probes],
  ]) {
    console.log(
      `${name.padEnd(30)} ${String(s.count).padStart(8)} ${f(s.rps)} ${f(s.p50)} ${f(s.p95)} ${f(s.p99)} ${f(s.max)}`,
    );
  }
  console.log(
    `statuses (0: connection error): autosave ${JSON.stringify(scenario.statuses)}, /version ${JSON.stringify(scenario.probeStatuses)}`,
  );
  console.log(
    `acknowledged saves checked against the database: ${highest.size} (session, question) pairs, ${lost} not holding their highest acknowledged seq`,
  );
  console.log(
    `\n2. Capacity: autocannon ${connections} connections, ${duration} s x ${rounds} rounds alternated (median)`,
  );
  console.log('target                          req/s   p50 ms  p99 ms  non2xx  rounds');
  for (const [name, runs] of [
    ['PUT .../answers/{question_id}', capacity.autosave],
    ['same statement through pg (10)', capacity.sql],
    ['GET /version', capacity.version],
  ]) {
    console.log(
      `${name.padEnd(30)} ${String(Math.round(med(runs, 'rps'))).padStart(6)} ${String(med(runs, 'p50')).padStart(8)} ${String(med(runs, 'p99')).padStart(7)} ${String(runs.reduce((a, x) => a + x.non2xx + x.errors, 0)).padStart(7)}  ${runs.map((x) => Math.round(x.rps)).join(' ')}`,
    );
  }
  console.log(
    `autosave / version: ${(med(capacity.autosave, 'rps') / med(capacity.version, 'rps')).toFixed(2)}; ` +
      `autosave / its statement alone: ${(med(capacity.autosave, 'rps') / med(capacity.sql, 'rps')).toFixed(2)}`,
  );
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/exams-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  const { acked: _acked, ...scenarioOut } = scenario;
  writeFileSync(
    file,
    JSON.stringify(
      {
        node: process.version,
        learners: LEARNERS,
        questions: QUESTIONS,
        periodMs: PERIOD_MS,
        scenario: scenarioOut,
        lost,
        capacity,
      },
      null,
      2,
    ),
  );
  console.log(`\nSaved ${file}`);
} finally {
  await client.end();
  await stop(service);
  await mail.close();
  await db.drop();
}
