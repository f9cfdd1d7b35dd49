// npm run bench:reports: a progress report of 1 000 000 enrollments (10 000 members x 100 courses of 5 lessons,
// a fifth of the enrollments with completed lessons), built by a separate worker process as CSV and as XLSX
// through the public API (request, job, FileStore, status), with the worker's RSS sampled during each run.
// Baseline in the same run: PostgreSQL's own COPY (query) TO STDOUT as CSV of the same query, through psql.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
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

const MEMBERS = Number(process.env.BENCH_REPORT_MEMBERS ?? 10_000);
const COURSES = Number(process.env.BENCH_REPORT_COURSES ?? 100);
const ROWS = MEMBERS * COURSES;
const db = await scratchDatabase('reports');
const mail = await startMailSink();
const port = await freePort();
const prefix = `lpbench:reports:${Date.now()}`;
const storage = mkdtempSync(join(tmpdir(), 'lp-bench-reports-'));
const shared = { STORAGE_DIR: storage, REPORT_MAX_ROWS: String(ROWS + 1) };
const api = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  extraEnv: { PROCESS_JOBS: 'false', ...shared },
});
const worker = startWorker({
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  baseUrl: `http://localhost:${port}`,
  extraEnv: shared,
  stdio: ['ignore', process.env.BENCH_WORKER_LOG ? 'inherit' : 'ignore', 'inherit'],
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

  // The fixture, written directly (its creation is not what is measured).
  const t0 = performance.now();
  await client.query(
    `INSERT INTO users (email, username, name, created_at, updated_at)
     SELECT 'm' || i || '@bench.test', 'm' || i, 'Member ' || i, now(), now() FROM generate_series(1, $1) AS i`,
    [MEMBERS],
  );
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role)
     SELECT $1, id, 'student' FROM users WHERE email LIKE '%@bench.test'`,
    [orgId],
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
    [orgId],
  );
  await client.query(
    `INSERT INTO lesson_completions (organization_id, user_id, course_id, lesson_id)
     SELECT e.organization_id, e.user_id, e.course_id, l.id FROM enrollments e
     JOIN lessons l ON l.course_id = e.course_id AND l.position <= 3
     WHERE e.organization_id = $1 AND hashtext(e.id::text) % 5 = 0`,
    [orgId],
  );
  await client.query('ANALYZE');
  console.log(`fixture: ${ROWS} enrollments written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const results = [];
  for (const format of ['csv', 'xlsx']) {
    await sleep(1000);
    const idleRss = workerRssMb();
    const started = performance.now();
    const report = await call('POST', `/api/v1/organizations/${orgId}/reports`, { type: 'progress', format });
    let peakRss = idleRss;
    let status;
    for (;;) {
      peakRss = Math.max(peakRss, workerRssMb());
      status = await call('GET', `/api/v1/organizations/${orgId}/reports/${report.id}`);
      if (status.status === 'completed' || status.status === 'failed') break;
      await sleep(200);
    }
    const ms = performance.now() - started;
    if (status.status !== 'completed') throw new Error(`report ${format} ${status.status}: ${status.error_code}`);
    results.push({ format, ms, rows: status.rows, size: status.size_bytes, idleRss, peakRss });
    console.log(`${format}: ${Math.round(ms)} ms, ${status.rows} rows, RSS ${idleRss} -> ${peakRss} MB`);
  }

  // Baseline: COPY of the same query (the report's SQL with the organization and no filters) through psql.
  const { reportQuery } = await import('../dist/src/modules/insight/reports/reports.repository.js');
  const sql = reportQuery('progress')
    .replaceAll('$1', `'${orgId}'::uuid`)
    .replaceAll('$2::uuid', 'NULL::uuid')
    .replaceAll('$3::uuid', 'NULL::uuid')
    .replaceAll('$2', 'NULL::uuid')
    .replaceAll('$3', 'NULL::uuid')
    .replaceAll('$4::timestamptz', 'NULL::timestamptz')
    .replaceAll('$5::timestamptz', 'NULL::timestamptz')
    .replaceAll('$4', 'NULL::timestamptz')
    .replaceAll('$5', 'NULL::timestamptz');
  const out = join(storage, 'copy.csv');
  const c0 = performance.now();
  const copy = spawnSync(
    'sh',
    ['-c', `psql "${db.url}" -q -c "\\copy (${sql.replace(/\s+/g, ' ')}) TO '${out}' WITH (FORMAT csv, HEADER)"`],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const copyMs = performance.now() - c0;
  if (copy.status !== 0) throw new Error('COPY failed');
  const copySize = statSync(out).size;

  console.log(`\nNode ${process.version}; progress report of ${ROWS} rows, worker as its own process (loaded machine)`);
  for (const r of results) {
    console.log(
      `${r.format.toUpperCase()}: ${(r.ms / 1000).toFixed(1)} s end to end = ${Math.round((r.rows / r.ms) * 1000)} rows/s, ` +
        `${(r.size / 1e6).toFixed(1)} MB; worker RSS ${r.idleRss} MB idle, ${r.peakRss} MB peak (+${r.peakRss - r.idleRss} MB)`,
    );
  }
  console.log(
    `baseline, COPY (same query) TO file as CSV through psql: ${(copyMs / 1000).toFixed(1)} s, ${(copySize / 1e6).toFixed(1)} MB`,
  );
} finally {
  await client.end();
  await stop(worker);
  await stop(api);
  await mail.close();
  await db.drop();
  rmSync(storage, { recursive: true, force: true });
}
