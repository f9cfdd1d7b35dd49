// npm run bench:scim: SCIM 2.0 provisioning (extensions-v3 section 8).
// 1. A full sync of BENCH_USERS (10 000) new users the way Entra does it: for each user `GET /scim/v2/Users?filter=
//    userName eq "..."` (expects an empty list) then `POST /scim/v2/Users`, from BENCH_CONNECTIONS (4) connections.
//    Target >= 250 users/s. Baseline in the same run: the same look-up and the same writes (account, membership,
//    directory row) as direct SQL over 4 pg connections, so the figure reads as "x of what the database does alone".
// 2. `GET /scim/v2/Users?filter=userName eq "..."` for existing members of an organization of BENCH_MEMBERS (100 000)
//    members, sequential, p99. Target <= 10 ms. Baseline in the same run: `GET /version` sequentially (the cost of
//    an HTTP round trip through the service) and the index look-up as direct SQL.
// The token's request limit is turned off (SCIM_TOKEN_PER_MINUTE=0): 1 200 a minute would make the sync measure
// the limit. Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { freePort, jsonCaller, scratchDatabase, signInCookie, startMailSink, startService, stop } from './lib.mjs';

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

/** Runs `work(i, loop)` for i in 0..n-1 from `connections` concurrent loops; returns the elapsed ms. */
async function pool(n, connections, work) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async (_, loop) => {
      for (let i = next++; i < n; i = next++) await work(i, loop);
    }),
  );
  return performance.now() - t0;
}

const db = await scratchDatabase('scim');
const mail = await startMailSink();
const port = await freePort();
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:scim:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: { LOG_LEVEL: 'warn', SCIM_TOKEN_PER_MINUTE: '0', DATABASE_POOL_SIZE: '10' },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const base = `http://127.0.0.1:${port}`;
try {
  // An owner, two organizations (one for the sync, one of MEMBERS members for the look-ups), a SCIM token each.
  const email = `owner.${Date.now()}@bench.example`;
  const cookie = await signInCookie(base, mail, email);
  const call = jsonCaller(base, { cookie });
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'es', adult_confirmed: true });
  const syncOrg = (await call('POST', '/api/v1/organizations', { name: 'Sync University' })).organization.id;
  const bigOrg = (await call('POST', '/api/v1/organizations', { name: 'Big University' })).organization.id;
  const code = mail.nextCode(email);
  await call('POST', '/api/v1/auth/step-up/request');
  const stepUp = await fetch(`${base}/api/v1/auth/step-up/verify`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ code: await code }),
  });
  if (stepUp.status !== 204) throw new Error(`step-up answered ${stepUp.status}`);
  const steppedUp = jsonCaller(base, {
    cookie: [cookie, ...stepUp.headers.getSetCookie().map((c) => c.split(';')[0])].join('; '),
  });
  const tokenOf = async (org) =>
    (await steppedUp('POST', `/api/v1/organizations/${org}/scim/tokens`, { description: 'bench' })).token;
  const syncToken = await tokenOf(syncOrg);
  const bigToken = await tokenOf(bigOrg);

  const seedStart = performance.now();
  const run = randomUUID().slice(0, 8);
  for (let i = 0; i < MEMBERS; i += 10_000) {
    const n = Math.min(10_000, MEMBERS - i);
    await client.query(
      `WITH u AS (
         INSERT INTO users (email, username, name, locale)
         SELECT 'm' || g || '.' || $3 || '@big.example', 'm' || g || '_' || $3, 'Member ' || g, 'es'
         FROM generate_series($1::int, $1::int + $2::int - 1) g RETURNING id, email)
       , m AS (INSERT INTO memberships (organization_id, user_id, role) SELECT $4, id, 'student' FROM u RETURNING user_id)
       INSERT INTO scim_members (organization_id, user_id, user_name, external_id, created_at, updated_at)
       SELECT $4, u.id, u.email, 'ext-' || u.id, now(), now() FROM u`,
      [i, n, run, bigOrg],
    );
  }
  await client.query('VACUUM ANALYZE users');
  await client.query('VACUUM ANALYZE memberships');
  await client.query('VACUUM ANALYZE scim_members');
  const seedMs = performance.now() - seedStart;

  const scim = (tok) => async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/scim+json' },
      body: body && JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  const sync = scim(syncToken);
  const big = scim(bigToken);

  // 1. Full sync, the Entra way.
  const userName = (i) => `user${i}.${run}@sync.example`;
  await sync('GET', '/scim/v2/Users?count=1'); // warm-up
  const syncMs = await pool(USERS, CONNECTIONS, async (i) => {
    const filter = encodeURIComponent(`userName eq "${userName(i)}"`);
    const found = await sync('GET', `/scim/v2/Users?filter=${filter}`);
    if (found.totalResults !== 0) throw new Error('the probe found a user that should not exist yet');
    await sync('POST', '/scim/v2/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: userName(i),
      externalId: `ext-${i}`,
      name: { givenName: 'User', familyName: String(i) },
      emails: [{ primary: true, type: 'work', value: userName(i) }],
      active: true,
    });
  });
  const created = await sync('GET', '/scim/v2/Users?count=0');

  // Baseline: the same look-up and writes as direct SQL, 4 connections.
  const sqlClients = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      return c;
    }),
  );
  const baseOrg = (await call('POST', '/api/v1/organizations', { name: 'Baseline College' })).organization.id;
  const sqlMs = await pool(USERS, CONNECTIONS, async (i, loop) => {
    const c = sqlClients[loop];
    const name = `base${i}.${run}@sync.example`;
    await c.query(
      `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.organization_id = $1 AND u.email = $2`,
      [baseOrg, name],
    );
    await c.query('BEGIN');
    const u = await c.query(`INSERT INTO users (email, username, locale) VALUES ($1, $2, 'es') RETURNING id`, [
      name,
      `base${i}_${run}`,
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
  await Promise.all(sqlClients.map((c) => c.end()));

  // 2. userName eq look-ups among MEMBERS members, sequential; baselines /version and the SQL look-up.
  const pickName = (i) => `m${(i * 7919) % MEMBERS}.${run}@big.example`;
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
    await (await fetch(`${base}/version`)).arrayBuffer();
    version.push(performance.now() - t0);
    t0 = performance.now();
    await client.query(
      `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.organization_id = $1 AND u.email = $2`,
      [bigOrg, pickName(i)],
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
      [bigOrg, pickName(1)],
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
  console.log(`  SQL only  ${f(sqlPerSecond)} users/s   ratio ${f(usersPerSecond / sqlPerSecond)}`);
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
        sync: { ms: syncMs, usersPerSecond, sqlMs, sqlPerSecond },
        lookup: { api: lookup, version: stats(version), sql: stats(sql), indexes: [...indexes] },
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
