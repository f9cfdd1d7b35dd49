// npm run bench:pooled: the cost of DATABASE_NAMED_STATEMENTS=false (5.2), and of PgBouncer in transaction mode.
// Three built services on one scratch database, loaded in turn (autocannon, `alternate`) on a read that runs the
// application's named statements (the social feed of an organization: `social.settings` and the feed page):
//   named     direct to PostgreSQL, named statements (the default): parsed and planned once per connection;
//   unnamed   direct, DATABASE_NAMED_STATEMENTS=false: the same SQL parsed and planned on every call;
//   pgbouncer through PgBouncer 1.18 (Debian) in transaction mode, unnamed (what that version requires), with
//             DATABASE_DIRECT_URL for the migrations.
// Prints req/s and p99 of each and the ratios to `named`. The figure: the req/s cost of `unnamed` on this read.
// Options: --duration 10 --rounds 3 --connections 32 (a small proof run: --duration 2 --rounds 1).
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL) and
// /usr/sbin/pgbouncer (apt-get install pgbouncer).
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ADMIN_DATABASE_URL,
  alternate,
  freePort,
  jsonCaller,
  scratchDatabase,
  signInCookie,
  startMailSink,
  startService,
  stop,
} from './lib.mjs';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const DURATION = option('duration', 10);
const ROUNDS = option('rounds', 3);
const CONNECTIONS = option('connections', 32);
const BINARY = process.env.PGBOUNCER_BINARY ?? '/usr/sbin/pgbouncer';

/** PgBouncer in transaction mode in front of the bench server (as test/support/pgbouncer.ts does for tests). */
async function startPgBouncer() {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: apt-get install -y pgbouncer`);
  const server = new URL(ADMIN_DATABASE_URL);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'lp-bench-pgbouncer-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || '5432'} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 1000',
      'ignore_startup_parameters = statement_timeout,idle_in_transaction_session_timeout,extra_float_digits,options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  const args = [join(dir, 'pgbouncer.ini')];
  if (process.getuid?.() === 0) {
    const runAs = process.env.PGBOUNCER_USER ?? 'postgres';
    const id = (flag) => Number(execFileSync('id', [flag, runAs], { encoding: 'utf8' }).trim());
    chownSync(dir, id('-u'), id('-g'));
    for (const file of readdirSync(dir)) chownSync(join(dir, file), id('-u'), id('-g'));
    args.unshift('-u', runAs);
  }
  const child = spawn(BINARY, args, { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try {
      const pg = (await import('pg')).default;
      const url = new URL(ADMIN_DATABASE_URL);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      url.pathname = '/pgbouncer';
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      await c.end();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: (databaseUrl) => {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    stop: async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const db = await scratchDatabase('pooled');
const mail = await startMailSink();
const bouncer = await startPgBouncer();
const prefix = `lpbench:pooled:${Date.now().toString(36)}`;
const BASE_URL = 'http://localhost:8000';
const children = [];
try {
  const ports = { named: await freePort(), unnamed: await freePort(), pgbouncer: await freePort() };
  const shared = { redisPrefix: prefix, smtpUrl: mail.url };
  children.push(await startService({ port: ports.named, databaseUrl: db.url, ...shared, extraEnv: { BASE_URL } }));
  children.push(
    await startService({
      port: ports.unnamed,
      databaseUrl: db.url,
      ...shared,
      extraEnv: { BASE_URL, DATABASE_NAMED_STATEMENTS: 'false', MIGRATE_ON_START: 'false' },
    }),
  );
  children.push(
    await startService({
      port: ports.pgbouncer,
      databaseUrl: bouncer.url(db.url),
      ...shared,
      extraEnv: { BASE_URL, DATABASE_NAMED_STATEMENTS: 'false', DATABASE_DIRECT_URL: db.url },
    }),
  );
  const base = `http://127.0.0.1:${ports.named}`;
  const cookie = await signInCookie(base, mail, `pooled.${Date.now()}@bench.test`);
  const call = jsonCaller(base, { cookie });
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'en', adult_confirmed: true });
  const org = (await call('POST', '/api/v1/organizations', { name: 'Pooled bench' })).organization.id;
  // The posting limit is 10 an hour per account.
  for (let i = 0; i < 10; i++) await call('POST', `/api/v1/organizations/${org}/posts`, { body_md: `Post ${i}` });
  const path = `/api/v1/organizations/${org}/feed`;
  const first = await fetch(`${base}${path}`, { headers: { cookie } });
  if (first.status !== 200) throw new Error(`the feed answered ${first.status}: ${await first.text()}`);

  const results = await alternate(
    Object.entries(ports).map(([name, port]) => ({
      name,
      url: `http://127.0.0.1:${port}${path}`,
      headers: { cookie },
    })),
    { rounds: ROUNDS, connections: CONNECTIONS, duration: DURATION },
  );
  const named = results.find((r) => r.name === 'named');
  console.log(`Feed read, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION} s each (median):`);
  for (const r of results) {
    console.log(
      `${r.name.padEnd(10)} ${String(r.rps).padStart(7)} req/s  p99 ${r.p99} ms  errors ${r.errors}  ` +
        `ratio to named ${(r.rps / named.rps).toFixed(2)}  rounds ${r.rounds.join(' / ')}`,
    );
  }
} finally {
  for (const child of children) await stop(child);
  await bouncer.stop();
  await mail.close();
  await db.drop();
}
