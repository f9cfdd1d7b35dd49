// npm run bench:certificates: the certificate area under load, each figure against a baseline in the same run.
//  1. CSV export of 10 000 certificates through the API (time, peak RSS of the service) versus psql running
//     `COPY (the same query) TO STDOUT WITH CSV` on the same database.
//  2. Public verification, req/s with 1 000 000 certificates in the table (random valid codes, a different
//     X-Forwarded-For per request so the 30/min/IP limit is exercised but never reached) versus /health and
//     /version of the same service.
//  3. The issued-certificate list at 100 000 certificates: p50/p95 per filter combination, for an owner and a
//     teacher, with the plan PostgreSQL chooses (EXPLAIN ANALYZE) for the page and the count.
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import pg from 'pg';
import { freePort, median, rssMb, scratchDatabase, signInCookie, startMailSink, startService, stop } from './lib.mjs';

const require = createRequire(import.meta.url);

// ---- load generator mode: `node bench/certificates.mjs --load <json>` (autocannon in its own process) ----
if (process.argv[2] === '--load') {
  const autocannon = require('autocannon');
  const { url, connections, duration, verify, total } = JSON.parse(process.argv[3]);
  let n = 0;
  const hexCode = (g) => {
    const h = g.toString(16).toUpperCase().padStart(8, '0');
    return `CRS-${h.slice(0, 4)}-${h.slice(4)}`;
  };
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        setupRequest: (req) => {
          n++;
          if (!verify) return req;
          // A random existing certificate, from an address of its own (the limit counts per address).
          const g = Math.floor(Math.random() * total);
          return {
            ...req,
            path: `/api/v1/public/certificates/verify/${hexCode(g)}`,
            headers: { ...req.headers, 'x-forwarded-for': `198.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
          };
        },
      },
    ],
  });
  process.stdout.write(
    JSON.stringify({
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    }),
  );
  process.exit(0);
}

function load(options) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['bench/certificates.mjs', '--load', JSON.stringify(options)],
      { maxBuffer: 16 * 1024 * 1024 },
      (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout))),
    );
  });
}

// The list's WHERE clause exactly as the service builds it, for EXPLAIN (loaded before anything can rebuild dist/).
const { certificateWhere } = require('../dist/src/modules/learning/certificates/certificate-query.js');

const VERIFY_ROWS = Number(process.env.BENCH_VERIFY_ROWS ?? 1_000_000);
const LIST_ROWS = Number(process.env.BENCH_LIST_ROWS ?? 100_000);
const EXPORT_ROWS = 10_000;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 200);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'export,verify,list').split(','));

const db = await scratchDatabase('certs');
const mail = await startMailSink();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:certs:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: {
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'warn',
    // BENCH_SERVICE_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=..." profiles the service (written when it stops).
    ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
  },
});
const serviceRssMb = (field) => rssMb(service.pid, field);
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const out = { node: process.version, cores: os.cpus().length };

async function session(email, name) {
  const cookie = await signInCookie(base, mail, email);
  const res = await fetch(`${base}/api/v1/me/onboarding`, {
    method: 'PUT',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ name, locale: 'en', adult_confirmed: true }),
  });
  if (res.status !== 200) throw new Error(`onboarding answered ${res.status}`);
  const me = await (await fetch(`${base}/api/v1/auth/me`, { headers: { cookie } })).json();
  return { cookie, id: me.id };
}

async function organization(owner, name) {
  const res = await fetch(`${base}/api/v1/organizations`, {
    method: 'POST',
    headers: { cookie: owner.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201) throw new Error(`create organization answered ${res.status}`);
  return (await res.json()).organization.id;
}

const t = (ms) => `${ms.toFixed(0)} ms`;

try {
  // ---------------------------------------------------------------- seed
  const seedStart = performance.now();
  const owner = await session(`owner.${Date.now()}@bench.test`, 'Bench Owner');
  const teacher = await session(`teacher.${Date.now()}@bench.test`, 'Bench Teacher');
  const orgExport = await organization(owner, 'Export Org');
  const orgList = await organization(owner, 'List Org');
  const orgVerify = await organization(owner, 'Verify Org');
  await client.query(`INSERT INTO users (email, username, name)
    SELECT 'p' || g || '@bench.test', 'p' || g, 'Person ' || g FROM generate_series(1, 2000) AS g`);
  await client.query(`INSERT INTO courses (slug, title, language, level, status)
    SELECT 'bc-' || g, 'Course ' || g, 'en', 'beginner', 'published' FROM generate_series(1, 1000) AS g`);
  await client.query(`INSERT INTO learning_paths (slug, title, kind, status)
    SELECT 'bp-' || g, 'Program ' || g, 'program', 'published' FROM generate_series(1, 5) AS g`);
  // Row-numbered helpers: person 0..1999, course 0..999, program 0..4.
  await client.query(
    `CREATE TEMP TABLE people AS SELECT row_number() OVER (ORDER BY email) - 1 AS n, id FROM users WHERE email LIKE 'p%@bench.test'`,
  );
  await client.query(
    `CREATE TEMP TABLE cs AS SELECT row_number() OVER (ORDER BY slug) - 1 AS n, id FROM courses WHERE slug LIKE 'bc-%'`,
  );
  await client.query(
    `CREATE TEMP TABLE ps AS SELECT row_number() OVER (ORDER BY slug) - 1 AS n, id FROM learning_paths WHERE slug LIKE 'bp-%'`,
  );
  await client.query(`INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM people`, [
    orgList,
  ]);
  await client.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'teacher')`, [
    orgList,
    teacher.id,
  ]);
  // 40 cohorts of 50 students; the teacher teaches two of them (100 students, 5 % of the certificates).
  await client.query(
    `INSERT INTO cohorts (organization_id, name) SELECT $1, 'Cohort ' || g FROM generate_series(0, 39) AS g`,
    [orgList],
  );
  await client.query(
    `CREATE TEMP TABLE hs AS SELECT row_number() OVER (ORDER BY name) - 1 AS n, id FROM cohorts WHERE organization_id = $1`,
    [orgList],
  );
  await client.query(
    `INSERT INTO cohort_members (cohort_id, organization_id, user_id, role)
     SELECT hs.id, $1, people.id, 'student' FROM people JOIN hs ON hs.n = people.n % 40`,
    [orgList],
  );
  await client.query(
    `INSERT INTO cohort_members (cohort_id, organization_id, user_id, role)
     SELECT id, $1, $2, 'teacher' FROM hs WHERE n IN (0, 1)`,
    [orgList, teacher.id],
  );
  const certificates = (org, prefix, rows, people, subjects) =>
    client.query(
      // Person g % people, subject g / people: each pair once, so the one-active-per-subject rule holds.
      // Every 10th subject is a program; 2 % replaced, about 8 % revoked.
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, path_id, title, status,
         issued_at, revoked_at, revoke_reason)
       SELECT $2 || '-' || substr(h, 1, 4) || '-' || substr(h, 5, 4),
         CASE WHEN s % 10 = 9 AND $5 THEN 'program' ELSE 'course' END, $1, p.id, 'Person ' || (g % $3),
         CASE WHEN s % 10 = 9 AND $5 THEN NULL ELSE cs.id END, CASE WHEN s % 10 = 9 AND $5 THEN ps.id END,
         'Title ' || s, CASE WHEN g % 50 = 0 THEN 'replaced' WHEN g % 12 = 1 THEN 'revoked' ELSE 'active' END,
         now() - make_interval(secs => g),
         CASE WHEN g % 50 = 0 OR g % 12 = 1 THEN now() END, CASE WHEN g % 12 = 1 AND g % 50 <> 0 THEN 'Bench' END
       FROM (SELECT g, g / $3 AS s, lpad(upper(to_hex(g)), 8, '0') AS h FROM generate_series(0, $4 - 1) AS g) x
       JOIN people p ON p.n = x.g % $3
       JOIN cs ON cs.n = x.s % 1000
       JOIN ps ON ps.n = (x.s / 10) % 5`,
      [org, prefix, people, rows, subjects],
    );
  await certificates(orgExport, 'EXP', EXPORT_ROWS, 2000, true);
  await certificates(orgList, 'LST', LIST_ROWS, 2000, true);
  await certificates(orgVerify, 'CRS', VERIFY_ROWS, 1000, false);
  // Steady state: autovacuum would have set the visibility map (index-only scans) and the statistics by now.
  await client.query('VACUUM ANALYZE');
  const [{ n: total }] = (await client.query(`SELECT count(*)::int AS n FROM issued_certificates`)).rows;
  console.log(`\nseeded ${total} certificates in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  // ---------------------------------------------------------------- 1. export
  if (PARTS.has('export')) {
    const exportUrl = `${base}/api/v1/organizations/${orgExport}/issued-certificates/export?lang=en`;
    const exportSql = `SELECT c.code, c.status, c.type, c.holder_name, c.user_id, c.title, c.course_id, c.path_id, c.cohort_id,
      c.issued_at, c.revoked_at, c.revoke_reason, r.code AS replaced_by_code
    FROM issued_certificates c LEFT JOIN issued_certificates r ON r.id = c.replaced_by_id
    WHERE c.organization_id = '${orgExport}' ORDER BY c.issued_at DESC, c.id DESC`;
    const apiExport = async () => {
      let peak = serviceRssMb();
      const sampler = setInterval(() => (peak = Math.max(peak, serviceRssMb())), 5);
      const start = performance.now();
      const res = await fetch(exportUrl, { headers: { cookie: owner.cookie } });
      if (res.status !== 200) throw new Error(`export answered ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      const ms = performance.now() - start;
      clearInterval(sampler);
      return { ms, bytes: body.length, lines: body.toString('utf8').split('\r\n').length - 2, peak };
    };
    const copyExport = () =>
      new Promise((resolve, reject) => {
        const start = performance.now();
        execFile(
          'psql',
          [db.url, '-X', '-q', '-c', `COPY (${exportSql}) TO STDOUT WITH CSV HEADER`],
          { maxBuffer: 64 << 20 },
          (err, stdout) =>
            err ? reject(err) : resolve({ ms: performance.now() - start, bytes: Buffer.byteLength(stdout) }),
        );
      });
    await apiExport(); // warm-up (JIT, pool)
    await copyExport();
    const idleRss = serviceRssMb();
    const api = [];
    const copy = [];
    for (let i = 0; i < 5; i++) {
      api.push(await apiExport());
      copy.push(await copyExport());
    }
    out.export = {
      rows: api[0].lines,
      api_ms: median(api.map((r) => r.ms)),
      copy_ms: median(copy.map((r) => r.ms)),
      api_bytes: api[0].bytes,
      copy_bytes: copy[0].bytes,
      rss_idle_mb: idleRss,
      rss_peak_mb: Math.max(...api.map((r) => r.peak)),
      runs_api_ms: api.map((r) => Math.round(r.ms)),
      runs_copy_ms: copy.map((r) => Math.round(r.ms)),
    };
    console.log(`\n1. Export of ${out.export.rows} certificates (median of 5, alternated)`);
    console.log(
      `   API (stream, neutralize, CSV, HTTP)    ${t(out.export.api_ms)}  ${out.export.api_bytes} bytes  runs ${out.export.runs_api_ms.join(' ')}`,
    );
    console.log(
      `   psql COPY ... TO STDOUT WITH CSV       ${t(out.export.copy_ms)}  ${out.export.copy_bytes} bytes  runs ${out.export.runs_copy_ms.join(' ')}`,
    );
    console.log(`   ratio API / COPY                       ${(out.export.api_ms / out.export.copy_ms).toFixed(2)}`);
    console.log(
      `   service RSS: ${idleRss} MB before, ${out.export.rss_peak_mb} MB peak during exports (+${out.export.rss_peak_mb - idleRss} MB)`,
    );
  }

  // ---------------------------------------------------------------- 2. verification
  if (PARTS.has('verify')) {
    // BENCH_VERIFY_ONLY=1 loads the verification alone (for profiling the service: no baseline in the profile).
    const targets = [
      { name: `verify (${VERIFY_ROWS} rows, random codes)`, url: base, verify: true },
      { name: 'GET /health', url: `${base}/health` },
      { name: 'GET /version (full pipeline, no db)', url: `${base}/version` },
    ].filter((x) => !process.env.BENCH_VERIFY_ONLY || x.verify);
    const runs = Object.fromEntries(targets.map((x) => [x.name, []]));
    for (let i = 0; i < rounds; i++) {
      for (const target of targets) {
        runs[target.name].push(
          await load({ url: target.url, connections, duration, verify: target.verify, total: VERIFY_ROWS }),
        );
      }
    }
    out.verify = targets.map((x) => ({
      name: x.name,
      rps: Math.round(median(runs[x.name].map((r) => r.rps))),
      p50: median(runs[x.name].map((r) => r.p50)),
      p99: median(runs[x.name].map((r) => r.p99)),
      non2xx: runs[x.name].reduce((a, r) => a + r.non2xx, 0),
      errors: runs[x.name].reduce((a, r) => a + r.errors, 0),
      rounds: runs[x.name].map((r) => Math.round(r.rps)),
    }));
    console.log(
      `\n2. Public verification: ${connections} connections, ${duration} s x ${rounds} rounds, alternated (median)`,
    );
    console.log(
      '   target'.padEnd(46),
      'req/s'.padStart(7),
      'p50'.padStart(5),
      'p99'.padStart(5),
      'non2xx'.padStart(7),
      ' vs /health  vs /version',
    );
    const [, health, version] = out.verify;
    for (const r of out.verify) {
      console.log(
        `   ${r.name}`.padEnd(46),
        String(r.rps).padStart(7),
        String(r.p50).padStart(5),
        String(r.p99).padStart(5),
        String(r.non2xx + r.errors).padStart(7),
        ` ${health ? (r.rps / health.rps).toFixed(2) : '-'}`.padEnd(12),
        `${version ? (r.rps / version.rps).toFixed(2) : '-'}`.padEnd(10),
        `(${r.rounds.join(' ')})`,
      );
    }
  }

  // ---------------------------------------------------------------- 3. list
  if (PARTS.has('list')) {
    const [course] = (await client.query(`SELECT id FROM cs WHERE n = 3`)).rows;
    const [program] = (await client.query(`SELECT id FROM ps WHERE n = 4`)).rows;
    const [taught] = (await client.query(`SELECT id FROM hs WHERE n = 0`)).rows;
    const [other] = (await client.query(`SELECT id FROM hs WHERE n = 7`)).rows;
    const combos = [
      ['owner', {}],
      ['owner', { course_id: course.id }],
      ['owner', { path_id: program.id }],
      ['owner', { status: 'revoked' }],
      ['owner', { type: 'program' }],
      ['owner', { status: 'active', type: 'course' }],
      ['owner', { cohort_id: other.id }],
      ['owner', { course_id: course.id, status: 'active' }],
      ['owner', { cohort_id: other.id, status: 'revoked' }],
      ['owner', { cohort_id: other.id, course_id: course.id, status: 'active', type: 'course' }],
      ['owner', { status: 'active', offset: '5000' }],
      ['teacher', {}],
      ['teacher', { course_id: course.id }],
      ['teacher', { status: 'revoked' }],
      ['teacher', { type: 'program' }],
      ['teacher', { cohort_id: taught.id }],
      ['teacher', { cohort_id: taught.id, status: 'active', type: 'course' }],
    ];
    const filterOf = (who, q) => ({
      courseId: q.course_id,
      pathId: q.path_id,
      cohortId: q.cohort_id,
      status: q.status,
      type: q.type,
      teacherId: who === 'teacher' ? teacher.id : undefined,
    });
    const indexesOf = (plan) =>
      [
        ...new Set(
          [...plan.matchAll(/(?:Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\w+)/g)].map(
            (m) => m[1],
          ),
        ),
      ]
        .filter(Boolean)
        .join(', ') || (plan.includes('Seq Scan on issued_certificates') ? 'SEQ SCAN' : '-');
    const seqOf = (plan) => (/Seq Scan on (issued_certificates|cohort_members)/.test(plan) ? ' SEQ!' : '');
    out.list = [];
    console.log(
      `\n3. GET issued-certificates at ${LIST_ROWS} certificates: ${SAMPLES} sequential requests per row (after 10 warm-up)`,
    );
    console.log(
      '   caller  filters'.padEnd(58),
      'total'.padStart(6),
      'p50'.padStart(6),
      'p95'.padStart(6),
      '  page plan (indexes) | count plan (indexes)',
    );
    for (const [who, q] of combos) {
      const query = new URLSearchParams(q).toString();
      const url = `${base}/api/v1/organizations/${orgList}/issued-certificates?${query}`;
      const cookie = who === 'owner' ? owner.cookie : teacher.cookie;
      let totalRows = 0;
      for (let i = 0; i < 10; i++) totalRows = (await (await fetch(url, { headers: { cookie } })).json()).total;
      const times = [];
      for (let i = 0; i < SAMPLES; i++) {
        const start = performance.now();
        const res = await fetch(url, { headers: { cookie } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      const { sql, params } = certificateWhere(orgList, filterOf(who, q));
      const offset = Number(q.offset ?? 0);
      // The service's page (ids first through an index, then those rows) and total (per-organization counters for
      // the organization-wide filters, else a count through the filter's index), as CertificatesRepository runs them.
      const explain = async (text, values) =>
        (await client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${text}`, values)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      const pagePlan = await explain(
        `SELECT c.*, r.code FROM issued_certificates c LEFT JOIN issued_certificates r ON r.id = c.replaced_by_id
         WHERE c.id = ANY (ARRAY(SELECT c.id FROM issued_certificates c WHERE ${sql}
           ORDER BY c.issued_at DESC, c.id DESC LIMIT 50 OFFSET ${offset}))
         ORDER BY c.issued_at DESC, c.id DESC`,
        params,
      );
      const f = filterOf(who, q);
      const countPlan =
        !f.courseId && !f.pathId && !f.cohortId && !f.teacherId
          ? await explain(
              `SELECT coalesce(sum(n), 0) FROM issued_certificate_counts WHERE organization_id = $1
               AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR type = $3)`,
              [orgList, f.status ?? null, f.type ?? null],
            )
          : await explain(`SELECT count(*) FROM issued_certificates c WHERE ${sql}`, params);
      // Before issue 20, in the same run: the page read directly, and an exact count(*) for every filter.
      const oldPagePlan = await explain(
        `SELECT c.*, r.code FROM issued_certificates c LEFT JOIN issued_certificates r ON r.id = c.replaced_by_id
         WHERE ${sql} ORDER BY c.issued_at DESC, c.id DESC LIMIT 50 OFFSET ${offset}`,
        params,
      );
      const oldCountPlan = await explain(`SELECT count(*) FROM issued_certificates c WHERE ${sql}`, params);
      const row = {
        who,
        filters: query || '(none)',
        total: totalRows,
        p50: +times[Math.floor(times.length * 0.5)].toFixed(1),
        p95: +times[Math.floor(times.length * 0.95)].toFixed(1),
        page_plan: indexesOf(pagePlan) + seqOf(pagePlan),
        page_ms: Number(/Execution Time: ([\d.]+)/.exec(pagePlan)?.[1]),
        count_plan: indexesOf(countPlan) + seqOf(countPlan),
        count_ms: Number(/Execution Time: ([\d.]+)/.exec(countPlan)?.[1]),
        old_page_ms: Number(/Execution Time: ([\d.]+)/.exec(oldPagePlan)?.[1]),
        old_count_ms: Number(/Execution Time: ([\d.]+)/.exec(oldCountPlan)?.[1]),
        plans: { page: pagePlan, count: countPlan, old_page: oldPagePlan, old_count: oldCountPlan },
      };
      out.list.push(row);
      console.log(
        `   ${who.padEnd(7)} ${row.filters.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, (id) => `${id.slice(0, 4)}…`)}`.padEnd(
          58,
        ),
        String(row.total).padStart(6),
        String(row.p50).padStart(6),
        String(row.p95).padStart(6),
        `  ${row.page_plan} (${row.page_ms} ms) | ${row.count_plan} (${row.count_ms} ms) | before: ${row.old_page_ms} + ${row.old_count_ms} ms`,
      );
    }
  }

  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/certificates-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(out, null, 2));
  console.log(`\nNode ${process.version}, ${os.cpus().length} cores. Saved ${file}`);
} finally {
  await client.end();
  await stop(service);
  await mail.close();
  await db.drop();
}
