// npm run bench:privacy: the data export (extensions-v2 17.3) of one person who has 100 000 rows across areas
// (audit entries, consents, sessions; a second person holds as many rows in the same tables), end to end through
// the public API: request, the `privacy.export` job in a separate worker process whose memory is sampled, and the
// step-up download of the ZIP. Baseline in the same run: the same rows read by three plain SQL queries and
// serialized as JSON in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  freePort,
  rssMb,
  scratchDatabase,
  signInCookie,
  startMailSink,
  startService,
  startWorker,
  stop,
} from './lib.mjs';

const ROWS = Number(process.env.BENCH_PRIVACY_ROWS ?? 100_000);
const db = await scratchDatabase('privacy');
const mail = await startMailSink();
const port = await freePort();
const prefix = `lpbench:privacy:${Date.now()}`;
const storageDir = mkdtempSync(join(tmpdir(), 'lp-bench-privacy-'));
const api = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  extraEnv: { PROCESS_JOBS: 'false', STORAGE_DIR: storageDir },
});
const worker = startWorker({
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  baseUrl: `http://localhost:${port}`,
  extraEnv: { STORAGE_DIR: storageDir },
});
const workerRssMb = () => rssMb(worker.pid);

const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const base = `http://127.0.0.1:${port}`;
  const email = `person.${Date.now()}@example.test`;
  const cookie = await signInCookie(base, mail, email);
  const call = async (method, path, body, headers = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { cookie, 'content-type': 'application/json', ...headers },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.status === 204 ? null : res.json();
  };
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Person', locale: 'en', adult_confirmed: true });
  const me = await call('GET', '/api/v1/auth/me');
  const [{ id: other }] = (
    await client.query(
      `INSERT INTO users (email, username, created_at, updated_at) VALUES ('other@bench.test', 'other', now(), now()) RETURNING id`,
    )
  ).rows;

  // The rows (their creation is not what is measured): half audit entries, 30% consents, 20% sessions, for the
  // person and as many for someone else.
  const audit = Math.floor(ROWS / 2);
  const consents = Math.floor((ROWS * 3) / 10);
  const sessions = ROWS - audit - consents;
  for (const id of [me.id, other]) {
    await client.query(
      `INSERT INTO audit_log (action, actor_id, target_type, target_id, metadata, created_at)
       SELECT 'bench.action', $1, 'course', gen_random_uuid()::text, jsonb_build_object('n', i, 'kind', 'bench'),
              now() - (i || ' seconds')::interval
       FROM generate_series(1, $2) AS i`,
      [id, audit],
    );
    await client.query(
      `INSERT INTO consents (user_id, kind, terms_version, granted, granted_at)
       SELECT $1, CASE i % 3 WHEN 0 THEN 'terms' WHEN 1 THEN 'privacy_policy' ELSE 'product_updates_email' END,
              '2026-09-01', i % 2 = 0, now() - (i || ' seconds')::interval
       FROM generate_series(1, $2) AS i`,
      [id, consents],
    );
    await client.query(
      `INSERT INTO sessions (user_id, device, created_at, last_seen_at, expires_at, revoked_at, revoked_reason)
       SELECT $1, 'Bench browser ' || i, now() - interval '40 days', now() - interval '39 days',
              now() - interval '10 days', now() - interval '39 days', 'logout'
       FROM generate_series(1, $2) AS i`,
      [id, sessions],
    );
  }
  await client.query('ANALYZE');
  await sleep(1000);
  const idleRss = workerRssMb();

  const started = performance.now();
  const queued = await call('POST', '/api/v1/me/privacy/exports');
  let peakRss = idleRss;
  let record;
  for (;;) {
    peakRss = Math.max(peakRss, workerRssMb());
    record = await call('GET', `/api/v1/me/privacy/exports/${queued.id}`);
    if (record.status !== 'queued' && record.status !== 'running') break;
    await sleep(100);
  }
  const built = performance.now();
  if (record.status !== 'ready') throw new Error(`export ended ${record.status}`);

  // Step-up by the emailed code, then the download.
  await sleep(500); // the "export ready" email goes first, so the next code read is the step-up's
  const code = mail.nextCode(email);
  await call('POST', '/api/v1/auth/step-up/request');
  const stepUp = await fetch(`${base}/api/v1/auth/step-up/verify`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ code: await code }),
  });
  if (stepUp.status !== 204) throw new Error(`step-up answered ${stepUp.status}`);
  const withStepUp = [cookie, ...stepUp.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
  const d0 = performance.now();
  const download = await fetch(`${base}/api/v1/me/privacy/exports/${queued.id}/download`, {
    headers: { cookie: withStepUp },
  });
  if (download.status !== 200) throw new Error(`download answered ${download.status}`);
  const zip = Buffer.from(await download.arrayBuffer());
  const downloadMs = performance.now() - d0;

  // Baseline: the same rows read by plain queries and serialized as JSON here.
  const b0 = performance.now();
  let jsonBytes = 0;
  for (const sql of [
    `SELECT id, action, organization_id, target_type, target_id, metadata, created_at FROM audit_log WHERE actor_id = $1 ORDER BY created_at, id`,
    `SELECT kind, terms_version AS version, granted, granted_at FROM consents WHERE user_id = $1 ORDER BY granted_at, id`,
    `SELECT id, device, created_at, last_seen_at, expires_at, revoked_at FROM sessions WHERE user_id = $1 ORDER BY created_at`,
  ]) {
    jsonBytes += JSON.stringify((await client.query(sql, [me.id])).rows).length;
  }
  const baselineMs = performance.now() - b0;

  const buildMs = built - started;
  console.log(
    `\nNode ${process.version}; data export of one person with ${ROWS} rows (${audit} audit entries, ${consents} consents, ${sessions} sessions; another person holds as many), worker as its own process`,
  );
  console.log(
    `request to ready (job: every registered exporter in one snapshot, streamed ZIP, AES-256-GCM at rest): ${(buildMs / 1000).toFixed(2)} s = ${Math.round((ROWS / buildMs) * 1000)} rows/s`,
  );
  console.log(
    `ZIP: ${(record.size_bytes / 1024 / 1024).toFixed(2)} MiB (size_bytes ${record.size_bytes}, downloaded ${zip.length})`,
  );
  console.log(`download (step-up, decrypt, stream): ${Math.round(downloadMs)} ms`);
  console.log(`worker RSS: ${idleRss} MB idle, ${peakRss} MB peak (+${peakRss - idleRss} MB)`);
  console.log(
    `baseline, the same rows by three SQL queries + JSON.stringify in one process: ${Math.round(baselineMs)} ms (${(jsonBytes / 1024 / 1024).toFixed(1)} MiB of JSON)`,
  );
} finally {
  await client.end();
  await stop(worker);
  await stop(api);
  await mail.close();
  await db.drop();
  rmSync(storageDir, { recursive: true, force: true });
}
