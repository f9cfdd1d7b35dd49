// Shared helpers of the benchmarks: processes, ports, a scratch database, autocannon as a separate process.
import { execFile, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';

export const ADMIN_DATABASE_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function waitForHttp(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} did not come up`);
}

/** Creates a scratch database on the local server; returns its URL and a drop function. */
export async function scratchDatabase(label) {
  const name = `lp_bench_${label}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    /** Drops the database and the Redis keys of every service this run started (they share its lifetime). */
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
      await dropRedisPrefixes();
    },
  };
}

/** The Redis key prefixes the services of this run used (their workers share them). */
const usedPrefixes = new Set();

async function dropRedisPrefixes() {
  if (usedPrefixes.size === 0) return;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    for (const prefix of usedPrefixes) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await redis.unlink(...keys);
      } while (cursor !== '0');
    }
    usedPrefixes.clear();
  } finally {
    redis.disconnect();
  }
}

/** The settings the service and its worker share in a bench run (production mode, one database and prefix). */
function benchEnv({ databaseUrl, redisPrefix, smtpUrl, baseUrl }) {
  if (redisPrefix) usedPrefixes.add(redisPrefix);
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: redisPrefix,
    SMTP_URL: smtpUrl,
    MAIL_FROM: 'Bench <bench@localhost>',
    BASE_URL: baseUrl,
    WEB_URL: 'http://localhost:3000',
    APP_URL: 'http://localhost:3000',
    AUTH_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    // Request budgets count (their cost is part of every figure) at quotas no load reaches from one address;
    // bench/budgets.mjs measures them against off.
    API_BUDGET_TOKEN_PER_MINUTE: '1000000000',
    API_BUDGET_SESSION_PER_MINUTE: '1000000000',
    API_BUDGET_ANONYMOUS_PER_MINUTE: '1000000000',
  };
}

/**
 * Starts the built service (dist/) as its own process with production-like settings. `entry` runs another build
 * instead (e.g. the commit before a change, built in a copy of the tree: a same-run before/after).
 */
export async function startService({
  port,
  databaseUrl,
  redisPrefix,
  smtpUrl = 'smtp://127.0.0.1:1',
  extraEnv = {},
  startTimeoutMs = 60_000,
  entry = 'dist/src/apps/api.js',
}) {
  const [command, args] = pinned('service', [process.execPath, entry]);
  const child = spawn(command, args, {
    env: {
      ...benchEnv({ databaseUrl, redisPrefix, smtpUrl, baseUrl: `http://localhost:${port}` }),
      PORT: String(port),
      COOKIE_SECURE: 'false',
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`, startTimeoutMs);
  } catch (err) {
    child.kill('SIGTERM'); // not left running when it came up too late
    throw err;
  }
  return child;
}

/**
 * Starts the built worker (`dist/src/apps/worker.js`) as its own process on the service's database and prefix (the
 * service migrated already). `nodeOptions` go before the script (e.g. `--cpu-prof`).
 */
export function startWorker({
  databaseUrl,
  redisPrefix,
  smtpUrl = 'smtp://127.0.0.1:1',
  baseUrl,
  extraEnv = {},
  nodeOptions = [],
  stdio = ['ignore', 'ignore', 'inherit'],
}) {
  return spawn(process.execPath, [...nodeOptions, 'dist/src/apps/worker.js'], {
    env: {
      ...benchEnv({ databaseUrl, redisPrefix, smtpUrl, baseUrl }),
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    stdio,
  });
}

/** A process's resident memory (or another `/proc/<pid>/status` field) in MB; 0 once it is gone. */
export function rssMb(pid, field = 'VmRSS') {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** `call(method, path, body)`: a JSON request to the service with these headers; anything but 2xx throws. */
export function jsonCaller(base, headers) {
  return async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
}

/** The bare node:http baseline (bench/bare-server.mjs), answering `body` (a JSON string) when given. */
export async function startBare(port, body) {
  const env = { ...process.env, PORT: String(port), ...(body === undefined ? {} : { BENCH_BODY: body }) };
  const child = fork('bench/bare-server.mjs', { env, stdio: 'ignore' });
  await waitForHttp(`http://127.0.0.1:${port}/`);
  return child;
}

/**
 * The framework baseline (bench/minimal-nest-server.mjs): a minimal NestJS app on Express, its own process on the
 * same Node binary, answering `GET /version` with `body` (a JSON string).
 */
export async function startMinimalNest(port, body, extraEnv = {}) {
  const env = { ...process.env, PORT: String(port), BENCH_BODY: body, ...extraEnv };
  const child = fork('bench/minimal-nest-server.mjs', { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/version`);
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  }
  return child;
}

export function stop(child) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * BENCH_PIN=1 puts the services on CPU 0 and the load generator on CPU 1 (`taskset`, which execs the command: the
 * pid stays the service's). On two cores an unpinned generator takes CPU from the service it measures, unevenly
 * between a cheaper and a dearer target, so a ratio of req/s understates the ratio of costs; pinned, each service
 * is bound by its own CPU alone.
 */
function pinned(role, [command, ...args]) {
  if (process.env.BENCH_PIN !== '1') return [command, args];
  return ['taskset', ['-c', role === 'service' ? '0' : '1', command, ...args]];
}

/** Runs autocannon as a separate process and returns req/s (mean) and latency p99 / p95 in ms. */
export function autocannon(url, { connections = 32, duration = 5, headers = {} } = {}) {
  const args = ['node_modules/autocannon/autocannon.js', '-j', '-c', String(connections), '-d', String(duration)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const [command, pinnedArgs] = pinned('load', [process.execPath, ...args]);
    execFile(command, pinnedArgs, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) return reject(err);
      const r = JSON.parse(stdout);
      const non2xx = r.non2xx ?? 0;
      resolve({
        rps: r.requests.average,
        p99: r.latency.p99,
        p95: r.latency.p97_5 ?? r.latency.p99,
        errors: r.errors + non2xx,
      });
    });
  });
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Loads each target in turn, `rounds` times, so drift of the machine hits all of them alike. */
export async function alternate(targets, { rounds = 3, connections = 32, duration = 5 } = {}) {
  const results = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let i = 0; i < rounds; i++) {
    for (const t of targets)
      results[t.name].push(await autocannon(t.url, { connections, duration, headers: t.headers }));
  }
  return targets.map((t) => {
    const runs = results[t.name];
    return {
      name: t.name,
      rps: Math.round(median(runs.map((r) => r.rps))),
      p99: median(runs.map((r) => r.p99)),
      errors: runs.reduce((a, r) => a + r.errors, 0),
      rounds: runs.map((r) => Math.round(r.rps)),
    };
  });
}

/** A loopback SMTP sink for the benchmark's sign-ins; resolves the 6-digit code sent to an address. */
export async function startMailSink() {
  const waiting = new Map();
  let delivered = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        const code = /\b(\d{6})\b/.exec(raw.split('\r\n\r\n').slice(1).join('\n'))?.[1];
        for (const rcpt of session.envelope.rcptTo) waiting.get(rcpt.address.toLowerCase())?.(code);
        delivered++;
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.server.address().port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    nextCode: (email) => new Promise((resolve) => waiting.set(email.toLowerCase(), resolve)),
    delivered: () => delivered,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Signs in through the public API (email code read from the sink); returns the Cookie header of the session. */
export async function signInCookie(base, mail, email) {
  const codePromise = mail.nextCode(email);
  const req = await fetch(`${base}/api/v1/auth/otp/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  if (req.status !== 200) throw new Error(`otp/request answered ${req.status}`);
  const code = await codePromise;
  const res = await fetch(`${base}/api/v1/auth/otp/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, code }),
  });
  if (res.status !== 200) throw new Error(`otp/verify answered ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** Runs `work(i, loop)` for i in 0..n-1 from `loops` concurrent loops; answers the elapsed ms. */
export async function concurrently(n, loops, work) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      for (let i = next++; i < n; i = next++) await work(i, loop);
    }),
  );
  return performance.now() - t0;
}

/** CPU time (user + system, all threads, in microseconds) a process has used so far, from /proc/<pid>/stat. */
export function processCpuUs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of proc_pid_stat(5), counted here from the state (field 3); 100 ticks/s.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return 0; // gone
  }
}

/** A SCIM client for one token: `(method, path, body)` answers the parsed body; anything but 2xx throws. */
export function scimCaller(base, token) {
  return async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      body: body && JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text);
  };
}

/**
 * The part bench/scim.mjs and bench/scim-statements.mjs share. Starts the built service on a scratch database (the
 * SCIM token's request limit off: at 1 200 a minute the sync would measure the limit; `extraEnv` added), signs an
 * owner in, creates the organization of the sync and that of the look-ups and, after a step-up, a SCIM token for
 * each. Answers:
 * - `seedMembers(n)`: n members of the look-up organization (account, membership, directory row) in plain SQL, then
 *   VACUUM ANALYZE; `lookupName(i)` names one of them;
 * - `syncUsers(n, connections)`: n new users provisioned the way Entra does it, from `connections` loops: for each,
 *   `GET /scim/v2/Users?filter=userName eq "..."` (must answer an empty list) then `POST /scim/v2/Users`; answers ms;
 * - `backendCpuUs(applicationName?)`: the CPU time so far of the scratch database's server processes: those of the
 *   service (every connection not named by the bench), or those whose application_name is given;
 * - `waitIdle({ quietCpu })`: waits until the service has no due event delivery or job left and (unless `quietCpu`
 *   is false, e.g. while a profiler samples it) its process is quiet (under 5 % of a core over half a second), so what
 *   follows is not measured against its background work; answers ms;
 * - `close()`: stops the service and the sink, drops the database and the Redis keys.
 */
export async function startScimBench({ label = 'scim', extraEnv = {} } = {}) {
  const db = await scratchDatabase(label);
  const mail = await startMailSink();
  const port = await freePort();
  const service = await startService({
    port,
    databaseUrl: db.url,
    redisPrefix: `lpbench:${label}:${Date.now()}`,
    smtpUrl: mail.url,
    extraEnv: { LOG_LEVEL: 'warn', SCIM_TOKEN_PER_MINUTE: '0', DATABASE_POOL_SIZE: '10', ...extraEnv },
  }).catch(async (err) => {
    await mail.close();
    await db.drop();
    throw err;
  });
  const client = new pg.Client({ connectionString: db.url, application_name: 'bench' });
  const base = `http://127.0.0.1:${port}`;
  const close = async () => {
    await client.end().catch(() => undefined);
    await stop(service);
    await mail.close();
    if (process.env.KEEP_DB) console.log('kept', db.url);
    else await db.drop();
  };
  try {
    await client.connect();
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
    const sync = scimCaller(base, await tokenOf(syncOrg));
    const big = scimCaller(base, await tokenOf(bigOrg));
    const run = Math.random().toString(36).slice(2, 10);
    let seeded = 0;

    const seedMembers = async (n) => {
      seeded = n;
      for (let i = 0; i < n; i += 10_000) {
        await client.query(
          `WITH u AS (
             INSERT INTO users (email, username, name, locale)
             SELECT 'm' || g || '.' || $3 || '@big.example', 'm' || g || '_' || $3, 'Member ' || g, 'es'
             FROM generate_series($1::int, $1::int + $2::int - 1) g RETURNING id, email)
           , m AS (INSERT INTO memberships (organization_id, user_id, role) SELECT $4, id, 'student' FROM u RETURNING user_id)
           INSERT INTO scim_members (organization_id, user_id, user_name, external_id, created_at, updated_at)
           SELECT $4, u.id, u.email, 'ext-' || u.id, now(), now() FROM u`,
          [i, Math.min(10_000, n - i), run, bigOrg],
        );
      }
      for (const table of ['users', 'memberships', 'scim_members']) await client.query(`VACUUM ANALYZE ${table}`);
    };

    const userName = (i) => `user${i}.${run}@sync.example`;
    const syncUsers = (n, connections) =>
      concurrently(n, connections, async (i) => {
        const found = await sync('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${userName(i)}"`)}`);
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

    const backendCpuUs = async (applicationName) => {
      const { rows } = await client.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND (CASE WHEN $1::text IS NULL THEN application_name NOT LIKE 'bench%' ELSE application_name = $1 END)`,
        [applicationName ?? null],
      );
      return rows.reduce((sum, r) => sum + processCpuUs(r.pid), 0);
    };

    const waitIdle = async ({ quietCpu = true, timeoutMs = 300_000 } = {}) => {
      const t0 = performance.now();
      for (;;) {
        const { rows } = await client.query(
          `SELECT (SELECT count(*)::int FROM domain_event_deliveries WHERE status = 'pending' AND run_after <= now())
                + (SELECT count(*)::int FROM jobs WHERE status IN ('pending', 'running') AND run_after <= now()) AS n`,
        );
        const cpu0 = processCpuUs(service.pid);
        await sleep(500);
        const quiet = !quietCpu || processCpuUs(service.pid) - cpu0 <= 25_000;
        if (rows[0].n === 0 && quiet) return performance.now() - t0;
        if (performance.now() - t0 > timeoutMs) throw new Error(`the service was still busy after ${timeoutMs} ms`);
      }
    };

    return {
      db,
      base,
      client,
      service,
      call,
      sync,
      big,
      syncOrg,
      bigOrg,
      run,
      seedMembers,
      lookupName: (i) => `m${(i * 7919) % seeded}.${run}@big.example`,
      userName,
      syncUsers,
      backendCpuUs,
      waitIdle,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
