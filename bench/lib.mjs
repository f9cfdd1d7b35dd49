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
  const child = spawn(process.execPath, [entry], {
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

/** Runs autocannon as a separate process and returns req/s (mean) and latency p99 / p95 in ms. */
export function autocannon(url, { connections = 32, duration = 5, headers = {} } = {}) {
  const args = ['node_modules/autocannon/autocannon.js', '-j', '-c', String(connections), '-d', String(duration)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
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
