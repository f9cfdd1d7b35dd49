// npm run bench:engagement: the engagement area's two figures, against the built service.
//  1. XP awarding throughput: 100 000 `lesson.completed` events (1 000 members x 100 lessons) queued in the outbox
//     (domain_events + one delivery each for the gamification subscriber), then a worker process
//     (dist/src/apps/worker.js) applies them. Rate = events / (last delivery done - first delivery done), and the wall
//     time from the worker's spawn. Checked afterwards: 100 000 ledger rows, every member at 1 000 XP.
//  2. Leaderboard read with 1 000 000 members with XP this week in one organization: GET .../leaderboard?limit=10
//     &around=5 (the top 10 and the caller's rank +-5, one request) through the API with the caller's session,
//     alternated with GET /version of the same service (autocannon, BENCH_ROUNDS x BENCH_DURATION s each, median).
//     The first read builds the Redis sorted set of the week from the ledger (timed separately).
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import os from 'node:os';
import pg from 'pg';
import {
  alternate,
  freePort,
  jsonCaller,
  scratchDatabase,
  signInCookie,
  startMailSink,
  startService,
  startWorker,
  stop,
} from './lib.mjs';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1_000_000);
const EVENT_MEMBERS = Number(process.env.BENCH_EVENT_MEMBERS ?? 1000);
const EVENTS_EACH = Number(process.env.BENCH_EVENTS_EACH ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
// `xp`, `board` or both (default): the parts to run.
const PARTS = (process.env.BENCH_PARTS ?? 'xp,board').split(',');
// e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` profiles the worker of the XP part (written when it stops).
const WORKER_NODE_OPTIONS = (process.env.BENCH_WORKER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const db = await scratchDatabase('engagement');
const mail = await startMailSink();
const port = await freePort();
const prefix = `lpbench:engagement:${Date.now()}`;
// BENCH_SERVICE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the API process of the reads.
const env = {
  LOG_LEVEL: 'warn',
  PROCESS_JOBS: 'false',
  // The leaderboard's same-bytes baseline route (GET .../bench/leaderboard-baseline), mounted for benchmarks only.
  BENCH_ROUTES: 'true',
  ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
};
let service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  extraEnv: { LOG_LEVEL: 'warn' },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const base = `http://127.0.0.1:${port}`;
let worker;
try {
  const cookie = await signInCookie(base, mail, `owner.${Date.now()}@example.test`);
  const call = jsonCaller(base, { cookie });
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'es', adult_confirmed: true });
  const me = await call('GET', '/api/v1/auth/me');
  const eventsOrg = (await call('POST', '/api/v1/organizations', { name: 'Bench events' })).organization.id;
  const boardOrg = (await call('POST', '/api/v1/organizations', { name: 'Bench board' })).organization.id;
  // The API process must not deliver the queued events: restart it without job processing.
  await stop(service);
  service = await startService({ port, databaseUrl: db.url, redisPrefix: prefix, smtpUrl: mail.url, extraEnv: env });

  const seedMembers = async (org, n, tag) => {
    for (let i = 0; i < n; i += 50_000) {
      const k = Math.min(50_000, n - i);
      await client.query(
        `WITH u AS (
           INSERT INTO users (email, username, name, public_profile)
           SELECT 'b.' || $2 || '.' || g || '@example.test', 'b-' || $2 || '-' || g, 'Member ' || g, (g % 3 = 0)
           FROM generate_series($3::int, $3::int + $4::int - 1) g RETURNING id)
         INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM u`,
        [org, tag, i, k],
      );
    }
  };
  // ---- 1. XP awarding throughput ----
  const xpPart = async () => {
    let t0 = performance.now();
    await seedMembers(eventsOrg, EVENT_MEMBERS, 'ev');
    const total = EVENT_MEMBERS * EVENTS_EACH;
    await client.query(
      `WITH m AS (SELECT user_id, row_number() OVER (ORDER BY user_id) AS n FROM memberships WHERE organization_id = $1 AND role = 'student'),
     e AS (
       INSERT INTO domain_events (id, name, version, organization_id, actor_id, occurred_at, payload)
       SELECT gen_random_uuid(), 'lesson.completed', 1, $1, m.user_id, now(),
         jsonb_build_object('user_id', m.user_id, 'course_id', gen_random_uuid(), 'lesson_id', gen_random_uuid())
       FROM m CROSS JOIN generate_series(1, $2::int) RETURNING id)
     INSERT INTO domain_event_deliveries (event_id, subscriber, run_after) SELECT id, 'gamification.engagement', now() FROM e`,
      [eventsOrg, EVENTS_EACH],
    );
    const seedEventsMs = performance.now() - t0;
    t0 = performance.now();
    worker = startWorker({
      databaseUrl: db.url,
      redisPrefix: prefix,
      smtpUrl: mail.url,
      baseUrl: base,
      nodeOptions: WORKER_NODE_OPTIONS,
    });
    for (;;) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM domain_event_deliveries WHERE subscriber = 'gamification.engagement' AND status <> 'done'`,
      );
      if (rows[0].n === 0) break;
      await sleep(250);
    }
    const wallMs = performance.now() - t0;
    await stop(worker);
    worker = undefined;
    const span = (
      await client.query(
        `SELECT extract(epoch FROM max(done_at) - min(done_at)) * 1000 AS ms FROM domain_event_deliveries
       WHERE subscriber = 'gamification.engagement'`,
      )
    ).rows[0].ms;
    const check = (
      await client.query(
        `SELECT (SELECT count(*)::int FROM xp_ledger WHERE organization_id = $1) AS rows,
         (SELECT count(*)::int FROM xp_totals WHERE organization_id = $1 AND xp = $2) AS full_members`,
        [eventsOrg, EVENTS_EACH * 10],
      )
    ).rows[0];
    return { total, seedEventsMs, span, wallMs, check };
  };

  // ---- 2. Leaderboard read over 1 000 000 members ----
  const boardPart = async () => {
    let t0 = performance.now();
    await seedMembers(boardOrg, MEMBERS, 'lb');
    await client.query(
      `INSERT INTO xp_ledger (organization_id, user_id, source, source_id, amount, local_date, occurred_at, created_at)
     SELECT $1, user_id, 'lesson', gen_random_uuid()::text, 1 + (hashtext(user_id::text) & 4095), current_date, now(), now()
     FROM memberships WHERE organization_id = $1 AND role = 'student'`,
      [boardOrg],
    );
    await client.query(
      `INSERT INTO xp_ledger (organization_id, user_id, source, source_id, amount, local_date, occurred_at, created_at)
     VALUES ($1, $2, 'lesson', 'bench', 2048, current_date, now(), now())`,
      [boardOrg, me.id],
    );
    await client.query(
      `INSERT INTO xp_totals (organization_id, user_id, xp, level, updated_at)
     SELECT organization_id, user_id, sum(amount), 1, now() FROM xp_ledger WHERE organization_id = $1 GROUP BY 1, 2`,
      [boardOrg],
    );
    await client.query('VACUUM ANALYZE xp_ledger');
    await client.query('VACUUM ANALYZE xp_totals');
    await client.query('VACUUM ANALYZE memberships');
    const seedBoardMs = performance.now() - t0;
    const path = `/api/v1/organizations/${boardOrg}/leaderboard?limit=10&around=5`;
    t0 = performance.now();
    const first = await call('GET', path);
    const buildMs = performance.now() - t0;
    if (first.items.length !== 10 || first.around.length !== 11 || first.total !== MEMBERS + 1)
      throw new Error(`unexpected leaderboard: ${JSON.stringify({ ...first, items: first.items.length })}`);
    // The baseline answers the same bytes through the same pipeline (cookie, membership, query validation) without
    // the leaderboard's work: checked before anything is measured.
    const baselinePath = `/api/v1/organizations/${boardOrg}/bench/leaderboard-baseline?limit=10&around=5`;
    const [real, same] = await Promise.all(
      [path, baselinePath, baselinePath].map((p) => fetch(base + p, { headers: { cookie } }).then((r) => r.text())),
    ).then(([a, , b]) => [a, b]);
    if (real !== same) throw new Error("the baseline route does not answer the leaderboard's bytes");
    const results = await alternate(
      [
        { name: 'leaderboard top 10 + me +-5', url: base + path, headers: { cookie } },
        { name: `same ${real.length} bytes, no work`, url: base + baselinePath, headers: { cookie } },
        { name: 'GET /version', url: `${base}/version` },
      ],
      { rounds: ROUNDS, connections: CONNECTIONS, duration: DURATION },
    );
    return { seedBoardMs, buildMs, first, results };
  };

  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (PARTS.includes('xp')) {
    const { total, seedEventsMs, span, wallMs, check } = await xpPart();
    console.log(
      `\nXP awarding: ${total} lesson.completed events (${EVENT_MEMBERS} members x ${EVENTS_EACH}), seeded in ${(seedEventsMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `  worker: ${Math.round(total / (span / 1000))} events/s between the first and the last delivery (${(span / 1000).toFixed(1)} s); wall ${(wallMs / 1000).toFixed(1)} s from spawn (${Math.round(total / (wallMs / 1000))} events/s)`,
    );
    console.log(
      `  check: ${check.rows} ledger rows, ${check.full_members} of ${EVENT_MEMBERS} members at ${EVENTS_EACH * 10} XP`,
    );
  }
  if (PARTS.includes('board')) {
    const { seedBoardMs, buildMs, first, results } = await boardPart();
    console.log(
      `\nLeaderboard: ${MEMBERS} members with XP this week (seeded in ${(seedBoardMs / 1000).toFixed(1)} s); first read (builds the Redis set) ${(buildMs / 1000).toFixed(2)} s; caller rank ${first.me.rank}`,
    );
    console.log(`${''.padEnd(32)}${'req/s'.padStart(9)}${'p99 ms'.padStart(9)}${'errors'.padStart(8)}  rounds`);
    for (const r of results)
      console.log(
        `${r.name.padEnd(32)}${String(r.rps).padStart(9)}${String(r.p99).padStart(9)}${String(r.errors).padStart(8)}  ${r.rounds.join(' ')}`,
      );
    console.log(
      `ratio to the same-bytes baseline: ${(results[0].rps / results[1].rps).toFixed(2)} (target >= 0.5); ` +
        `to /version: ${(results[0].rps / results[2].rps).toFixed(2)}`,
    );
  }
} finally {
  if (worker) await stop(worker);
  await stop(service);
  await client.end();
  await mail.close();
  await db.drop();
}
