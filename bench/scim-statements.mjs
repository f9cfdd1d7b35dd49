// node bench/scim-statements.mjs (after npm run build): the statements per synced user and per look-up of
// bench/scim.mjs at a reduced size, counted inside the service (bench/sql-stats.mjs preloaded). BENCH_USERS (300)
// users synced the Entra way (filter GET then POST, 4 connections), then BENCH_LOOKUPS (300) `userName eq` look-ups
// among BENCH_MEMBERS (20 000) members. Prints each statement text per unit with its mean time (for ranking only: the
// machine's load moves it). OUT (/tmp/scim-statements) gets each window's counts; CPU_PROF=1 also a CPU profile per
// window (`node bench/cpu-top.mjs OUT/stats.json.<n>.cpuprofile`: 1 is the sync, 3 the look-ups); KEEP_DB=1 keeps
// the database (for EXPLAIN). Counts do not depend on the machine; never read the times here as a figure.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { freePort, jsonCaller, scratchDatabase, signInCookie, startMailSink, startService, stop } from './lib.mjs';
const USERS = Number(process.env.BENCH_USERS ?? 300);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 20_000);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 300);
const OUT = process.env.OUT ?? '/tmp/scim-statements';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function pool(n, connections, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let i = next++; i < n; i = next++) await work(i);
    }),
  );
}
mkdirSync(OUT, { recursive: true });
const db = await scratchDatabase('scimprof');
const mail = await startMailSink();
const port = await freePort();
const nodeOpts = [`--import=${process.cwd()}/bench/sql-stats.mjs`];
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:scimprof:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: {
    LOG_LEVEL: 'warn',
    SCIM_TOKEN_PER_MINUTE: '0',
    DATABASE_POOL_SIZE: '10',
    NODE_OPTIONS: nodeOpts.join(' '),
    SQLSTATS_FILE: `${OUT}/stats.json`,
    SQLSTATS_CPU_PROFILE: process.env.CPU_PROF ?? '',
  },
});
const dump = async (name) => {
  await sleep(500);
  rmSync(`${OUT}/stats.json`, { force: true });
  service.kill('SIGUSR2');
  for (let i = 0; i < 200 && !existsSync(`${OUT}/stats.json`); i++) await sleep(100);
  await sleep(100);
  const s = JSON.parse(readFileSync(`${OUT}/stats.json`, 'utf8'));
  writeFileSync(`${OUT}/${name}.json`, JSON.stringify(s, null, 1));
  return s;
};
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const base = `http://127.0.0.1:${port}`;
let bigOrg;
let run;
try {
  const email = `owner.${Date.now()}@bench.example`;
  const cookie = await signInCookie(base, mail, email);
  const call = jsonCaller(base, { cookie });
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'es', adult_confirmed: true });
  const syncOrg = (await call('POST', '/api/v1/organizations', { name: 'Sync University' })).organization.id;
  bigOrg = (await call('POST', '/api/v1/organizations', { name: 'Big University' })).organization.id;
  const code = mail.nextCode(email);
  await call('POST', '/api/v1/auth/step-up/request');
  const stepUp = await fetch(`${base}/api/v1/auth/step-up/verify`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ code: await code }),
  });
  const steppedUp = jsonCaller(base, {
    cookie: [cookie, ...stepUp.headers.getSetCookie().map((c) => c.split(';')[0])].join('; '),
  });
  const tokenOf = async (org) =>
    (await steppedUp('POST', `/api/v1/organizations/${org}/scim/tokens`, { description: 'bench' })).token;
  const syncToken = await tokenOf(syncOrg);
  const bigToken = await tokenOf(bigOrg);
  run = randomUUID().slice(0, 8);
  for (let i = 0; i < MEMBERS; i += 10_000) {
    const n = Math.min(10_000, MEMBERS - i);
    await client.query(
      `WITH u AS (INSERT INTO users (email, username, name, locale) SELECT 'm' || g || '.' || $3 || '@big.example', 'm' || g || '_' || $3, 'Member ' || g, 'es' FROM generate_series($1::int, $1::int + $2::int - 1) g RETURNING id, email)
       , m AS (INSERT INTO memberships (organization_id, user_id, role) SELECT $4, id, 'student' FROM u RETURNING user_id)
       INSERT INTO scim_members (organization_id, user_id, user_name, external_id, created_at, updated_at) SELECT $4, u.id, u.email, 'ext-' || u.id, now(), now() FROM u`,
      [i, n, run, bigOrg],
    );
  }
  for (const t of ['users', 'memberships', 'scim_members']) await client.query(`VACUUM ANALYZE ${t}`);
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
  const userName = (i) => `user${i}.${run}@sync.example`;
  await sync('GET', '/scim/v2/Users?count=1');
  await dump('setup');
  await pool(USERS, 4, async (i) => {
    const found = await sync('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${userName(i)}"`)}`);
    if (found.totalResults !== 0) throw new Error('probe found');
    await sync('POST', '/scim/v2/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: userName(i),
      externalId: `ext-${i}`,
      name: { givenName: 'User', familyName: String(i) },
      emails: [{ primary: true, type: 'work', value: userName(i) }],
      active: true,
    });
  });
  await sleep(1500); // the batched activity lines and event deliveries of the window
  const s1 = await dump('sync');
  const pickName = (i) => `m${(i * 7919) % MEMBERS}.${run}@big.example`;
  for (let i = 0; i < 20; i++)
    await big('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${pickName(i)}"`)}`);
  await sleep(1000);
  await dump('warm');
  for (let i = 0; i < LOOKUPS; i++) {
    const res = await big('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${pickName(i)}"`)}`);
    if (res.totalResults !== 1) throw new Error('expected one');
  }
  await sleep(1500);
  const s2 = await dump('lookup');
  const show = (label, s, n) => {
    console.log(`\n== ${label}: ${s.total} statements, ${(s.total / n).toFixed(2)} per unit`);
    for (const r of s.rows.slice(0, 40))
      console.log(
        `${(r.n / n).toFixed(2).padStart(6)}  ${(r.ms / r.n).toFixed(2).padStart(7)}ms  ${r.sql.slice(0, 230)}`,
      );
  };
  show(`sync of ${USERS} users`, s1, USERS);
  show(`${LOOKUPS} look-ups`, s2, LOOKUPS);
  const cnt = await client.query(`SELECT count(*)::int n FROM memberships WHERE organization_id = $1`, [syncOrg]);
  console.log('\nsync org members', cnt.rows[0].n);
} finally {
  await client.end();
  await stop(service);
  await mail.close();
  if (process.env.KEEP_DB) console.log('kept', db.url, 'orgs', bigOrg ?? '', run ?? '');
  else await db.drop();
}
