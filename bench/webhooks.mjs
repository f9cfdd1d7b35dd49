// Outbound webhooks (extensions-v2 25.3): how fast domain events reach integrators' endpoints.
//
// Builds, starts the service (API and worker in one process, NODE_ENV=development so that loopback endpoints are
// accepted; PostgreSQL and Redis on their local ports, a scratch database) and a receiving node:http server in
// its own process that verifies every Standard Webhooks signature. An owner signs in (email code through an SMTP
// sink), steps up and creates BENCH_ENDPOINTS endpoints (default 10) subscribed to `member.joined`. Then:
//   1. the receiver's own ceiling: autocannon POSTs a signed delivery to it (same verification) for BENCH_DURATION s;
//   2. BENCH_EVENTS `member.joined` events (default 10 000) are committed to the domain-event outbox at once (as
//      publish writes them: the event and its delivery row for the `webhooks.fan_out` subscriber), and the clock
//      runs until the receiver has seen every (event, endpoint) delivery.
// Reports deliveries/s end to end (commit of the events to the last delivery received) against the ceiling.
import { execFile, fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { freePort, scratchDatabase, startMailSink, startService, stop } from './lib.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 1200);

const db = await scratchDatabase('webhooks');
const mail = await startMailSink();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:webhooks:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: { NODE_ENV: 'development', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', BASE_URL: base },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
let receiver;

async function call(cookie, method, path, body, expected) {
  const res = await fetch(base + path, {
    method,
    headers: { cookie, 'content-type': 'application/json', 'x-forwarded-for': '198.18.0.1' },
    body: body && JSON.stringify(body),
  });
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res;
}

function ask(child, message) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
}

function postLoad(url, body, headers) {
  const args = ['node_modules/autocannon/autocannon.js', '-j', '-c', String(CONNECTIONS), '-d', String(DURATION)];
  args.push('-m', 'POST', '-b', body);
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) return reject(err);
      const r = JSON.parse(stdout);
      resolve({ rps: r.requests.average, p99: r.latency.p99, errors: r.errors + (r.non2xx ?? 0) });
    });
  });
}

try {
  // An owner with an organization, stepped up.
  const email = 'owner@bench.test';
  const code = mail.nextCode(email);
  await call('', 'POST', '/api/v1/auth/otp/request', { email }, 200);
  const verified = await call('', 'POST', '/api/v1/auth/otp/verify', { email, code: await code }, 200);
  let cookie = verified.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  await call(cookie, 'PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'en', adult_confirmed: true }, 200);
  const org = (await (await call(cookie, 'POST', '/api/v1/organizations', { name: 'Bench Org' }, 201)).json())
    .organization.id;
  const stepCode = mail.nextCode(email);
  await call(cookie, 'POST', '/api/v1/auth/step-up/request', undefined, 200);
  const stepped = await call(cookie, 'POST', '/api/v1/auth/step-up/verify', { code: await stepCode }, 204);
  cookie = [cookie, ...stepped.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');

  // The receiver, then the endpoints pointing at it (their secrets go to the receiver for verification).
  const receiverPort = await freePort();
  const secrets = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const res = await call(
      cookie,
      'POST',
      `/api/v1/organizations/${org}/webhook-endpoints`,
      { url: `http://127.0.0.1:${receiverPort}/e${i}`, events: ['member.joined'] },
      201,
    );
    secrets.push((await res.json()).secret);
  }
  receiver = fork('bench/webhook-receiver.mjs', {
    env: { ...process.env, PORT: String(receiverPort), WEBHOOK_SECRETS: secrets.join(',') },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise((resolve) => receiver.once('message', resolve));

  // 1. The receiver's own ceiling, verifying a validly signed delivery on every request.
  const sampleBody = JSON.stringify({
    id: '0b6d6a0e-6a55-4d6c-8c3c-0d9e8f1a2b3c',
    type: 'member.joined',
    timestamp: new Date().toISOString(),
    organization_id: org,
    data: { user_id: '5f0c7a8e-1d2b-4c3d-9e8f-0a1b2c3d4e5f', role: 'student' },
  });
  const now = new Date();
  const ceiling = await postLoad(`http://127.0.0.1:${receiverPort}/e0`, sampleBody, {
    'content-type': 'application/json',
    'webhook-id': '0b6d6a0e-6a55-4d6c-8c3c-0d9e8f1a2b3c',
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secrets[0]).sign('0b6d6a0e-6a55-4d6c-8c3c-0d9e8f1a2b3c', now, sampleBody),
  });
  const afterCeiling = await ask(receiver, 'count');
  await ask(receiver, 'reset');

  // 2. The events, committed at once to the outbox.
  const expected = EVENTS * ENDPOINTS;
  const started = performance.now();
  await client.query('BEGIN');
  for (let done = 0; done < EVENTS; done += 1000) {
    const n = Math.min(1000, EVENTS - done);
    await client.query(
      `WITH e AS (
         INSERT INTO domain_events (id, name, version, organization_id, actor_id, occurred_at, payload)
         SELECT gen_random_uuid(), 'member.joined', 1, $1, NULL, now(),
           jsonb_build_object('user_id', gen_random_uuid(), 'role', 'student')
         FROM generate_series(1, $2) RETURNING id)
       INSERT INTO domain_event_deliveries (event_id, subscriber, run_after)
       SELECT id, 'webhooks.fan_out', now() FROM e`,
      [org, n],
    );
  }
  await client.query('COMMIT');
  const committed = performance.now();
  let last = { received: 0 };
  let fannedOutAt = null;
  while (performance.now() - committed < TIMEOUT_S * 1000) {
    last = await ask(receiver, 'count');
    if (fannedOutAt === null) {
      const [{ n }] = (
        await client.query(
          `SELECT count(*)::int AS n FROM domain_event_deliveries WHERE subscriber = 'webhooks.fan_out' AND status = 'done'`,
        )
      ).rows;
      if (n >= EVENTS) fannedOutAt = performance.now();
    }
    if (last.received >= expected) break;
    await sleep(250);
  }
  const finished = performance.now();
  const statuses = (
    await client.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status ORDER BY status`)
  ).rows;
  const seconds = (finished - committed) / 1000;
  const rate = last.received / seconds;
  console.log(`Node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  console.log(`events ${EVENTS} x endpoints ${ENDPOINTS} = ${expected} deliveries`);
  console.log(
    `receiver ceiling (autocannon, ${CONNECTIONS} connections, ${DURATION} s, signature verified): ` +
      `${Math.round(ceiling.rps)} req/s, p99 ${ceiling.p99} ms, errors ${ceiling.errors}, invalid ${afterCeiling.invalid}`,
  );
  console.log(
    `events committed in ${((committed - started) / 1000).toFixed(2)} s; fanned out (deliveries recorded) after ` +
      `${fannedOutAt ? ((fannedOutAt - committed) / 1000).toFixed(1) : 'n/a'} s`,
  );
  console.log(
    `received ${last.received} (distinct ${last.distinct}, invalid signatures ${last.invalid}) in ${seconds.toFixed(1)} s: ` +
      `${Math.round(rate)} deliveries/s = ${(rate / ceiling.rps).toFixed(3)} of the receiver's ceiling`,
  );
  console.log(`delivery log: ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}`);
  if (last.received < expected) console.log(`INCOMPLETE: timed out after ${TIMEOUT_S} s`);
} finally {
  await client.end().catch(() => undefined);
  await stop(receiver);
  await stop(service);
  await mail.close();
  await db.drop();
}
