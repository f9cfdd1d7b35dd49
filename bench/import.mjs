// npm run bench:import: a CSV member import of 10 000 rows (half new emails, half existing accounts), end to end
// through the public API, processed by a separate worker process whose memory is sampled during the run.
// Baseline in the same run: the same 5 000 memberships and 5 000 invitations written by two bulk SQL statements.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  freePort,
  jsonCaller,
  rssMb,
  scratchDatabase,
  signInCookie,
  startMailSink,
  startService,
  startWorker,
  stop,
} from './lib.mjs';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
const db = await scratchDatabase('import');
const mail = await startMailSink();
const port = await freePort();
const prefix = `lpbench:import:${Date.now()}`;
const api = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  extraEnv: { PROCESS_JOBS: 'false' },
});
const worker = startWorker({
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  baseUrl: `http://localhost:${port}`,
});
const workerRssMb = () => rssMb(worker.pid);

const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const base = `http://127.0.0.1:${port}`;
  const cookie = await signInCookie(base, mail, `owner.${Date.now()}@example.test`);
  const call = jsonCaller(base, { cookie });
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'es', adult_confirmed: true });
  const orgId = (await call('POST', '/api/v1/organizations', { name: 'Bench Org' })).organization.id;

  // Half the rows are existing accounts, created directly (their sign-up is not what is measured).
  const half = Math.floor(ROWS / 2);
  const existing = Array.from({ length: half }, (_, i) => `existing${i}@bench.test`);
  await client.query(
    `INSERT INTO users (email, username, created_at, updated_at) SELECT e, 'u' || i, now(), now() FROM unnest($1::text[]) WITH ORDINALITY AS x(e, i)`,
    [existing],
  );
  const fresh = Array.from({ length: ROWS - half }, (_, i) => `new${i}@bench.test`);
  const csv = 'email,name,role\n' + [...existing, ...fresh].map((e, i) => `${e},Person ${i},student`).join('\n') + '\n';
  await sleep(1000);
  const idleRss = workerRssMb();
  const mailedBefore = mail.delivered();

  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'members.csv');
  const started = performance.now();
  const up = await fetch(`${base}/api/v1/organizations/${orgId}/members/import`, {
    method: 'POST',
    headers: { cookie },
    body: form,
  });
  if (up.status !== 202) throw new Error(`upload answered ${up.status}: ${await up.text()}`);
  const { id } = await up.json();
  const uploaded = performance.now();
  let peakRss = idleRss;
  let status;
  for (;;) {
    peakRss = Math.max(peakRss, workerRssMb());
    status = await call('GET', `/api/v1/organizations/${orgId}/members/import/${id}`);
    if (status.status === 'completed' || status.status === 'failed') break;
    await sleep(200);
  }
  const done = performance.now();
  const mailStart = performance.now();
  while (mail.delivered() - mailedBefore < fresh.length && performance.now() - mailStart < 300_000) {
    peakRss = Math.max(peakRss, workerRssMb());
    await sleep(200);
  }
  const mailed = mail.delivered() - mailedBefore;
  const mailDone = performance.now();

  // Baseline: the same writes as two bulk statements in a second organization.
  const [{ id: baseOrg }] = (
    await client.query(
      `INSERT INTO organizations (name, slug) VALUES ('Baseline', 'baseline-${Date.now()}') RETURNING id`,
    )
  ).rows;
  const t0 = performance.now();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM users WHERE email = ANY($2::text[])`,
    [baseOrg, existing],
  );
  await client.query(
    `INSERT INTO invitations (organization_id, email, role, token_hash, expires_at)
     SELECT $1, e, 'student', md5(e || random()::text), now() + interval '7 days' FROM unnest($2::text[]) AS e`,
    [baseOrg, fresh],
  );
  await client.query('COMMIT');
  const baselineMs = performance.now() - t0;

  const importMs = done - started;
  console.log(
    `\nNode ${process.version}; CSV import of ${ROWS} rows (${half} existing accounts, ${ROWS - half} new emails), worker as its own process`,
  );
  console.log(
    `status: ${status.status}  invited=${status.invited} added=${status.added} skipped=${status.skipped} failed=${status.failed}`,
  );
  console.log(`upload (parse + store rows + enqueue): ${Math.round(uploaded - started)} ms`);
  console.log(`import end to end: ${(importMs / 1000).toFixed(1)} s = ${Math.round((ROWS / importMs) * 1000)} rows/s`);
  console.log(
    `invitation emails delivered: ${mailed} in ${((mailDone - done) / 1000).toFixed(1)} s after the import finished`,
  );
  console.log(`worker RSS: ${idleRss} MB idle, ${peakRss} MB peak (+${peakRss - idleRss} MB)`);
  console.log(`baseline, the same memberships + invitations as two bulk SQL statements: ${Math.round(baselineMs)} ms`);
  console.log(`import / baseline: ${(importMs / baselineMs).toFixed(1)}x`);
} finally {
  await client.end();
  await stop(worker);
  await stop(api);
  await mail.close();
  await db.drop();
}
