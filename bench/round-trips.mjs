// node bench/round-trips.mjs (after a build): the SQL statements, Redis commands and Redis round trips the service
// sends per request, for `/version`, `GET /auth/me` (cookie), public certificate verification and the leaderboard
// read (top 10 + me +-5). A counter is preloaded into the service (bench/count-statements.mjs); each route is
// called BENCH_REQUESTS times one after the other (default 200, after 20 unmeasured), and the counts read before and
// after. These do not depend on the machine's load (timers in the background, the budgets' reconcile twice a
// second, count too: they show up as fractions). Small seeds: the counts, not the sizes, are the point.
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, jsonCaller, scratchDatabase, signInCookie, startMailSink, startService, stop } from './lib.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 200);

const db = await scratchDatabase('roundtrips');
const mail = await startMailSink();
const port = await freePort();
const countsFile = join(tmpdir(), `round-trips-${process.pid}.json`);
const counter = new URL('./count-statements.mjs', import.meta.url).href;
const serviceEnv = {
  LOG_LEVEL: 'warn',
  // Verification is loaded from many addresses (X-Forwarded-For), as bench/certificates.mjs does.
  TRUST_PROXY: 'true',
};
const start = (extraEnv) =>
  startService({
    port,
    databaseUrl: db.url,
    redisPrefix,
    smtpUrl: mail.url,
    extraEnv: { ...serviceEnv, ...extraEnv },
  });
const redisPrefix = `lpbench:roundtrips:${Date.now()}`;
// First with jobs (the sign-in code goes out by mail), then counted and without jobs (their polling would count).
let service = await start({});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const base = `http://127.0.0.1:${port}`;

async function counts() {
  const before = (() => {
    try {
      return readFileSync(countsFile, 'utf8');
    } catch {
      return '';
    }
  })();
  service.kill('SIGUSR2');
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 10));
    let now = '';
    try {
      now = readFileSync(countsFile, 'utf8');
    } catch {}
    if (now && now !== before) return JSON.parse(now);
  }
  // Nothing changed: the counts are the same as the last reading.
  return JSON.parse(before);
}

async function perRequest(name, url, headers = {}) {
  const call = () => fetch(url, { headers }).then(async (r) => ({ status: r.status, body: await r.arrayBuffer() }));
  for (let i = 0; i < 20; i++) await call();
  // Lets the budgets' reconcile of the warm-up go by, then reads the counts.
  await new Promise((r) => setTimeout(r, 600));
  const a = await counts();
  const t0 = Date.now();
  const statuses = {};
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const { status, body } = await call();
    statuses[status] = (statuses[status] ?? 0) + 1;
    bytes = body.byteLength;
  }
  const seconds = (Date.now() - t0) / 1000;
  const b = await counts();
  const per = (k) => ((b[k] - a[k]) / REQUESTS).toFixed(2);
  console.log(
    name.padEnd(44),
    per('statements').padStart(8),
    per('redisCommands').padStart(8),
    per('redisRoundTrips').padStart(10),
    String(bytes).padStart(7),
    JSON.stringify(statuses),
    `(${seconds.toFixed(1)} s; background timers add about ${(seconds * 2).toFixed(0)} Redis round trips in all)`,
  );
}

try {
  const cookie = await signInCookie(base, mail, `rt.${Date.now()}@example.test`);
  const call = jsonCaller(base, { cookie });
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'es', adult_confirmed: true });
  const me = await call('GET', '/api/v1/auth/me');
  const org = (await call('POST', '/api/v1/organizations', { name: 'Bench round trips' })).organization.id;
  await stop(service);
  service = await start({
    PROCESS_JOBS: 'false',
    NODE_OPTIONS: `--import ${counter} ${process.env.BENCH_SERVICE_NODE_OPTIONS ?? ''}`,
    BENCH_STATEMENTS_FILE: countsFile,
    BENCH_COUNT_JSON: '1',
  });
  // Members with XP this week, and the caller among them.
  await client.query(
    `WITH u AS (
       INSERT INTO users (email, username, name, public_profile)
       SELECT 'rt.' || g || '@example.test', 'rt-' || g, 'Member ' || g, (g % 3 = 0) FROM generate_series(1, $2::int) g
       RETURNING id)
     INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM u`,
    [org, MEMBERS],
  );
  await client.query(
    `INSERT INTO xp_ledger (organization_id, user_id, source, source_id, amount, local_date, occurred_at, created_at)
     SELECT $1, user_id, 'lesson', gen_random_uuid()::text, 1 + (hashtext(user_id::text) & 4095), current_date, now(), now()
     FROM memberships WHERE organization_id = $1`,
    [org],
  );
  await client.query(
    `INSERT INTO xp_totals (organization_id, user_id, xp, level, updated_at)
     SELECT organization_id, user_id, sum(amount), 1, now() FROM xp_ledger WHERE organization_id = $1 GROUP BY 1, 2`,
    [org],
  );
  // One certificate to verify, of a course.
  await client.query(
    `WITH c AS (INSERT INTO courses (slug, title, language, level, status)
       VALUES ('rt-course', 'Bench course', 'en', 'beginner', 'published') RETURNING id)
     INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title, status, issued_at)
     SELECT 'CRS-AAAA-0001', 'course', $1, $2, 'Bench Owner', c.id, 'Bench course', 'active', now() FROM c`,
    [org, me.id],
  );

  console.log(
    `\nNode ${process.version}; per request, ${REQUESTS} sequential requests each\n` + 'route'.padEnd(44),
    'SQL'.padStart(8),
    'Redis'.padStart(8),
    'Redis RTT'.padStart(10),
    'bytes'.padStart(7),
    'statuses',
  );
  await perRequest('GET /version', `${base}/version`);
  await perRequest('GET /api/v1/auth/me (cookie)', `${base}/api/v1/auth/me`, { cookie });
  // A fresh address per request, as the verification benchmark sends them (each with its own 30/min limit).
  let n = 0;
  await perRequest(
    'GET /public/certificates/verify/{code}',
    `${base}/api/v1/public/certificates/verify/CRS-AAAA-0001`,
    {
      // Read by fetch on each request: the next address.
      get 'x-forwarded-for'() {
        n++;
        return `198.51.${(n >> 8) & 255}.${n & 255}`;
      },
    },
  );
  await perRequest(
    'GET .../leaderboard?limit=10&around=5 (cookie)',
    `${base}/api/v1/organizations/${org}/leaderboard?limit=10&around=5`,
    { cookie },
  );
} finally {
  await client.end();
  await stop(service);
  await mail.close();
  await db.drop();
}
