// npm run bench:storage: the file store on S3 (extensions-v3 5.1). A progress report of 1 000 000 rows (10 000
// members x 100 courses) built as CSV by a separate worker process through the public API, once into a local
// folder (`STORAGE_URL=file://`, the baseline, same run) and once into an S3 server (s3rver on loopback,
// `STORAGE_URL=s3://...`, multipart upload while the report is produced), with the worker's RSS sampled during
// each run; the S3 report is then downloaded through the API (streamed from the bucket) and its bytes counted.
// Targets: RSS growth < 200 MB and time <= 1.3x the local run. Knobs: BENCH_STORAGE_MEMBERS, BENCH_STORAGE_COURSES.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

const MEMBERS = Number(process.env.BENCH_STORAGE_MEMBERS ?? 10_000);
const COURSES = Number(process.env.BENCH_STORAGE_COURSES ?? 100);
const ROWS = MEMBERS * COURSES;
const db = await scratchDatabase('storage');
const mail = await startMailSink();
const work = mkdtempSync(join(tmpdir(), 'lp-bench-storage-'));

// The S3 peer: s3rver on loopback, its objects in a temporary folder, one bucket, path-style requests.
const S3rver = createRequire(import.meta.url)('s3rver');
const s3 = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: join(work, 's3'),
  vhostBuckets: false,
  configureBuckets: [{ name: 'lp-bench' }],
});
const { port: s3Port } = await s3.run();
const endpoint = encodeURIComponent(`http://127.0.0.1:${s3Port}`);
const drivers = {
  file: { STORAGE_URL: `file://${join(work, 'local')}` },
  s3: {
    STORAGE_URL: `s3://lp-bench/reports-bench?region=us-east-1&endpoint=${endpoint}&force_path_style=true`,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  },
};

const client = new pg.Client({ connectionString: db.url });
await client.connect();
const children = [];
try {
  const results = {};
  const owner = `owner.${Date.now()}@example.test`;
  let orgId;
  for (const [driver, storageEnv] of Object.entries(drivers)) {
    // One API and one worker per driver, on the same database (the report rows are the same).
    const port = await freePort();
    const prefix = `lpbench:storage:${Date.now()}`;
    const env = { ...storageEnv, REPORT_MAX_ROWS: String(ROWS + 1) };
    const api = await startService({
      port,
      databaseUrl: db.url,
      redisPrefix: prefix,
      smtpUrl: mail.url,
      extraEnv: { PROCESS_JOBS: 'false', ...env },
    });
    const worker = startWorker({
      databaseUrl: db.url,
      redisPrefix: prefix,
      smtpUrl: mail.url,
      baseUrl: `http://localhost:${port}`,
      extraEnv: env,
      stdio: ['ignore', process.env.BENCH_WORKER_LOG ? 'inherit' : 'ignore', 'inherit'],
    });
    children.push(api, worker);
    const base = `http://127.0.0.1:${port}`;
    // Signed in on each phase's API: a session token names the BASE_URL that issued it.
    const cookie = await signInCookie(base, mail, owner);
    if (!orgId) {
      const call = jsonCaller(base, { cookie });
      await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'es', adult_confirmed: true });
      orgId = (await call('POST', '/api/v1/organizations', { name: 'Bench Org' })).organization.id;
      await fixture(orgId);
    }
    const call = jsonCaller(base, { cookie });
    await sleep(1000);
    const idleRss = rssMb(worker.pid);
    const started = performance.now();
    const report = await call('POST', `/api/v1/organizations/${orgId}/reports`, { type: 'progress', format: 'csv' });
    let peakRss = idleRss;
    let status;
    for (;;) {
      peakRss = Math.max(peakRss, rssMb(worker.pid));
      status = await call('GET', `/api/v1/organizations/${orgId}/reports/${report.id}`);
      if (status.status === 'completed' || status.status === 'failed') break;
      await sleep(200);
    }
    const ms = performance.now() - started;
    if (status.status !== 'completed') throw new Error(`${driver} report ${status.status}: ${status.error_code}`);
    // Read back through the API: streamed from the store, counted, never held whole.
    const d0 = performance.now();
    const res = await fetch(`${base}/api/v1/organizations/${orgId}/reports/${report.id}/download`, {
      headers: { cookie },
    });
    if (res.status !== 200) throw new Error(`${driver} download answered ${res.status}`);
    let bytes = 0;
    for await (const chunk of res.body) bytes += chunk.length;
    const downloadMs = performance.now() - d0;
    if (bytes !== status.size_bytes)
      throw new Error(`${driver} download: ${bytes} bytes, expected ${status.size_bytes}`);
    results[driver] = { ms, rows: status.rows, size: status.size_bytes, idleRss, peakRss, downloadMs };
    console.log(`${driver}: ${Math.round(ms)} ms, ${status.rows} rows, RSS ${idleRss} -> ${peakRss} MB`);
    await halt(worker);
    await halt(api);
  }

  console.log(`\nNode ${process.version}; CSV progress report of ${ROWS} rows, worker as its own process`);
  for (const [driver, r] of Object.entries(results)) {
    console.log(
      `${driver.padEnd(4)}: ${(r.ms / 1000).toFixed(1)} s end to end = ${Math.round((r.rows / r.ms) * 1000)} rows/s, ` +
        `${(r.size / 1e6).toFixed(1)} MB; worker RSS ${r.idleRss} MB idle, ${r.peakRss} MB peak ` +
        `(+${r.peakRss - r.idleRss} MB); download through the API ${(r.downloadMs / 1000).toFixed(1)} s`,
    );
  }
  const growth = results.s3.peakRss - results.s3.idleRss;
  const ratio = results.s3.ms / results.file.ms;
  console.log(
    `s3 / file (baseline, same run): ${ratio.toFixed(2)}x (target <= 1.3x: ${ratio <= 1.3 ? 'met' : 'not met'}); ` +
      `s3 worker RSS growth ${growth} MB (target < 200 MB: ${growth < 200 ? 'met' : 'not met'})`,
  );
} finally {
  await client.end();
  for (const child of children) await halt(child);
  await mail.close();
  // The processes' S3 clients keep connections alive: close them, or the server waits for them.
  s3.httpServer?.closeAllConnections();
  await s3.close();
  await db.drop();
  rmSync(work, { recursive: true, force: true });
}

/** SIGTERM, then SIGKILL after 10 s: a process still finishing its shutdown must not hold the next phase. */
async function halt(child) {
  const timer = setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 10_000);
  await stop(child);
  clearTimeout(timer);
}

/** The rows, written directly by SQL (their creation is not what is measured). */
async function fixture(org) {
  const t0 = performance.now();
  await client.query(
    `INSERT INTO users (email, username, name, created_at, updated_at)
     SELECT 'm' || i || '@bench.test', 'm' || i, 'Member ' || i, now(), now() FROM generate_series(1, $1) AS i`,
    [MEMBERS],
  );
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role)
     SELECT $1, id, 'student' FROM users WHERE email LIKE '%@bench.test'`,
    [org],
  );
  await client.query(
    `INSERT INTO courses (slug, title, language, level, status, published_at)
     SELECT 'bench-course-' || i, 'Course ' || i, 'es', 'beginner', 'published', now() FROM generate_series(1, $1) AS i`,
    [COURSES],
  );
  await client.query(
    `INSERT INTO lessons (course_id, position, title, language)
     SELECT c.id, p, 'Lesson ' || p, 'es' FROM courses c CROSS JOIN generate_series(1, 5) AS p WHERE c.slug LIKE 'bench-course-%'`,
  );
  await client.query(
    `INSERT INTO enrollments (organization_id, user_id, course_id, enrolled_at, last_activity_at)
     SELECT $1, u.id, c.id, now() - (random() * interval '90 days'), now()
     FROM users u CROSS JOIN courses c WHERE u.email LIKE '%@bench.test' AND c.slug LIKE 'bench-course-%'`,
    [org],
  );
  await client.query(
    `INSERT INTO lesson_completions (organization_id, user_id, course_id, lesson_id)
     SELECT e.organization_id, e.user_id, e.course_id, l.id FROM enrollments e
     JOIN lessons l ON l.course_id = e.course_id AND l.position <= 3
     WHERE e.organization_id = $1 AND hashtext(e.id::text) % 5 = 0`,
    [org],
  );
  await client.query('ANALYZE');
  console.log(`fixture: ${ROWS} enrollments written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
