// npm run bench:scim: SCIM 2.0 provisioning (extensions-v3 section 8).
// 1. A full sync of BENCH_USERS (10 000) new users the way Entra does it: for each user `GET /scim/v2/Users?filter=
//    userName eq "..."` (expects an empty list) then `POST /scim/v2/Users`, from BENCH_CONNECTIONS (4) connections.
//    Target >= 250 users/s. Also per synced user: the service's CPU, its PostgreSQL backends' CPU, its statements and
//    Redis round trips (bench/count-statements.mjs preloaded), during the sync and until the service is idle again
//    (its background work for the users just created: event deliveries, jobs, the activity log's batches).
//    Baseline in the same run: the same look-up and the same writes (account, membership, directory row) as direct
//    SQL over 4 pg connections, started once the service is idle (no due delivery or job, its process quiet), so the
//    figure reads as "x of what the database does alone" and the baseline does not share the machine with the
//    service's leftovers.
// 2. `GET /scim/v2/Users?filter=userName eq "..."` for existing members of an organization of BENCH_MEMBERS (100 000)
//    members, sequential, p99. Target <= 10 ms. Baseline in the same run: `GET /version` sequentially (the cost of
//    an HTTP round trip through the service) and the index look-up as direct SQL.
// The set-up (service, owner, organizations, tokens, seed, the sync loop) is `startScimBench` in bench/lib.mjs, shared
// with bench/scim-statements.mjs. BENCH_SERVICE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) goes to the
// service. Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { concurrently, processCpuUs, startScimBench } from './lib.mjs';
import { loadavg } from './cpu.mjs';

const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 1_000);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
function stats(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  return { n: ms.length, p50: pct(sorted, 50), p95: pct(sorted, 95), p99: pct(sorted, 99) };
}
const f = (x) => x.toFixed(2);

// The service counts its SQL statements and Redis round trips (bench/count-statements.mjs, written on SIGUSR2).
const countsFile = join(tmpdir(), `scim-counts-${process.pid}.json`);
const counter = new URL('./count-statements.mjs', import.meta.url).href;
const bench = await startScimBench({
  extraEnv: {
    NODE_OPTIONS: `--import ${counter} ${process.env.BENCH_SERVICE_NODE_OPTIONS ?? ''}`.trim(),
    BENCH_STATEMENTS_FILE: countsFile,
    BENCH_COUNT_JSON: '1',
  },
});
const counts = async () => {
  rmSync(countsFile, { force: true });
  bench.service.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    try {
      return JSON.parse(readFileSync(countsFile, 'utf8'));
    } catch {
      await sleep(50);
    }
  }
  throw new Error('the service wrote no counts');
};
const { client, db, service, sync, big } = bench;
const load = { start: loadavg() };
try {
  const seedStart = performance.now();
  await bench.seedMembers(MEMBERS);
  const seedMs = performance.now() - seedStart;

  // 1. Full sync, the Entra way. CPU and counts from just before to when the service is idle again: what each user
  // costs, synchronously and in the background (event deliveries, jobs, the activity log's batches).
  await sync('GET', '/scim/v2/Users?count=1'); // warm-up
  await bench.waitIdle();
  load.sync = loadavg();
  const before = { service: processCpuUs(service.pid), pg: await bench.backendCpuUs(), counts: await counts() };
  const syncMs = await bench.syncUsers(USERS, CONNECTIONS);
  const inWindow = { service: processCpuUs(service.pid), pg: await bench.backendCpuUs(), counts: await counts() };
  const idleMs = await bench.waitIdle();
  const after = { service: processCpuUs(service.pid), pg: await bench.backendCpuUs(), counts: await counts() };
  const perUser = (a, b) => ({
    serviceCpuUs: (a.service - b.service) / USERS,
    pgCpuUs: (a.pg - b.pg) / USERS,
    statements: (a.counts.statements - b.counts.statements) / USERS,
    redisRoundTrips: (a.counts.redisRoundTrips - b.counts.redisRoundTrips) / USERS,
  });
  const syncCost = { during: perUser(inWindow, before), total: perUser(after, before), backgroundMs: idleMs };
  const created = await sync('GET', '/scim/v2/Users?count=0');

  // Baseline: the same look-up and writes as direct SQL, 4 connections, once the service is idle (its background
  // work for the users just created would otherwise run during the baseline and slow it down).
  const baseOrg = (await bench.call('POST', '/api/v1/organizations', { name: 'Baseline College' })).organization.id;
  await bench.waitIdle();
  const sqlClients = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = new pg.Client({ connectionString: db.url, application_name: 'bench-baseline' });
      await c.connect();
      return c;
    }),
  );
  load.baseline = loadavg();
  const baseCpu0 = await bench.backendCpuUs('bench-baseline');
  const sqlMs = await concurrently(USERS, CONNECTIONS, async (i, loop) => {
    const c = sqlClients[loop];
    const name = `base${i}.${bench.run}@sync.example`;
    await c.query(
      `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.organization_id = $1 AND u.email = $2`,
      [baseOrg, name],
    );
    await c.query('BEGIN');
    const u = await c.query(`INSERT INTO users (email, username, locale) VALUES ($1, $2, 'es') RETURNING id`, [
      name,
      `base${i}_${bench.run}`,
    ]);
    await c.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'student')`, [
      baseOrg,
      u.rows[0].id,
    ]);
    await c.query(
      `INSERT INTO scim_members (organization_id, user_id, user_name, created_at, updated_at) VALUES ($1, $2, $3, now(), now())`,
      [baseOrg, u.rows[0].id, name],
    );
    await c.query('COMMIT');
  });
  const baselinePgCpuUs = ((await bench.backendCpuUs('bench-baseline')) - baseCpu0) / USERS;
  await Promise.all(sqlClients.map((c) => c.end()));

  // 2. userName eq look-ups among MEMBERS members, sequential; baselines /version and the SQL look-up.
  const pickName = bench.lookupName;
  for (let i = 0; i < 50; i++)
    await big('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${pickName(i)}"`)}`);
  const api = [];
  const version = [];
  const sql = [];
  for (let i = 0; i < LOOKUPS; i++) {
    let t0 = performance.now();
    const res = await big('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${pickName(i)}"`)}`);
    api.push(performance.now() - t0);
    if (res.totalResults !== 1) throw new Error(`expected one member for ${pickName(i)}, got ${res.totalResults}`);
    t0 = performance.now();
    await (await fetch(`${bench.base}/version`)).arrayBuffer();
    version.push(performance.now() - t0);
    t0 = performance.now();
    await client.query(
      `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.organization_id = $1 AND u.email = $2`,
      [bench.bigOrg, pickName(i)],
    );
    sql.push(performance.now() - t0);
  }
  const plan = (
    await client.query(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id
       LEFT JOIN scim_members s ON s.organization_id = m.organization_id AND s.user_id = m.user_id
       WHERE m.organization_id = $1 AND m.user_id = ANY(ARRAY(SELECT s2.user_id FROM scim_members s2
         WHERE s2.organization_id = $1 AND s2.user_name = $2) || ARRAY(SELECT u2.id FROM users u2 WHERE u2.email = $2))
         AND lower(coalesce(s.user_name, u.email)) = $2`,
      [bench.bigOrg, pickName(1)],
    )
  ).rows[0]['QUERY PLAN'];
  const indexes = new Set();
  const walk = (node) => {
    if (node['Index Name']) indexes.add(node['Index Name']);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan[0].Plan);

  const usersPerSecond = USERS / (syncMs / 1000);
  const sqlPerSecond = USERS / (sqlMs / 1000);
  const lookup = stats(api);
  console.log(`Seeded ${MEMBERS} members in ${(seedMs / 1000).toFixed(1)} s.`);
  console.log(
    `\nFull sync (GET filter + POST, ${CONNECTIONS} connections), ${USERS} users (${created.totalResults - 1} created):`,
  );
  console.log(`  service   ${f(usersPerSecond)} users/s   (target >= 250)`);
  console.log(
    `  SQL only  ${f(sqlPerSecond)} users/s   ratio ${f(usersPerSecond / sqlPerSecond)}   (after the service was idle)`,
  );
  const cost = (c) =>
    `service CPU ${(c.serviceCpuUs / 1000).toFixed(2)} ms, its PostgreSQL backends ${(c.pgCpuUs / 1000).toFixed(2)} ms, ` +
    `${c.statements.toFixed(2)} statements, ${c.redisRoundTrips.toFixed(2)} Redis round trips`;
  console.log(`  per user during the sync:      ${cost(syncCost.during)}`);
  console.log(
    `  per user until the service idles (${(syncCost.backgroundMs / 1000).toFixed(1)} s after): ${cost(syncCost.total)}`,
  );
  console.log(
    `  per user of the SQL baseline:  PostgreSQL backends ${(baselinePgCpuUs / 1000).toFixed(2)} ms, 6 statements`,
  );
  console.log(`  load average: start ${load.start}; sync ${load.sync}; baseline ${load.baseline}`);
  console.log(`\nuserName eq among ${MEMBERS} members, ${LOOKUPS} sequential look-ups (ms):`);
  console.log(
    `  GET /scim/v2/Users?filter  p50 ${f(lookup.p50)}  p95 ${f(lookup.p95)}  p99 ${f(lookup.p99)}   (target p99 <= 10)`,
  );
  console.log(`  GET /version (baseline)    p50 ${f(stats(version).p50)}  p99 ${f(stats(version).p99)}`);
  console.log(`  SQL look-up (baseline)     p50 ${f(stats(sql).p50)}  p99 ${f(stats(sql).p99)}`);
  console.log(`  indexes used by the filter query: ${[...indexes].join(', ')}`);

  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/scim-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify(
      {
        node: process.version,
        users: USERS,
        members: MEMBERS,
        connections: CONNECTIONS,
        sync: { ms: syncMs, usersPerSecond, sqlMs, sqlPerSecond, cost: syncCost, baselinePgCpuUs },
        load,
        lookup: { api: lookup, version: stats(version), sql: stats(sql), indexes: [...indexes] },
      },
      null,
      2,
    ),
  );
  console.log(`\nSaved ${file}`);
} finally {
  rmSync(countsFile, { force: true });
  await bench.close();
}
