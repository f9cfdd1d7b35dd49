// npm run bench:load: a realistic mix of learner traffic against TWO API instances (PROCESS_JOBS=false) and one
// worker process on one PostgreSQL and one Redis, in a scratch database the script seeds. 200 virtual learners
// (each its own keep-alive connection, its own session and its own address), closed loop for 60 s, each request
// picked at random with the weights of MIX: session refresh, catalog, course detail, lesson, progress, search, my
// certificates, public verification. Learners alternate between the two instances. Reports req/s, p50/p99 per
// route, connection errors and non-2xx statuses.
// Knobs: BENCH_CONNECTIONS (200), BENCH_DURATION (60 s), BENCH_COURSES (500), BENCH_CERTIFICATES (100000),
// BENCH_SERVICE_NODE_OPTIONS (node options of the first instance, e.g. a CPU profile).
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import pg from 'pg';
import { freePort, jsonCaller, scratchDatabase, startMailSink, startService, startWorker, stop } from './lib.mjs';

const MIX = [
  ['POST /auth/refresh', 1],
  ['GET /organizations/{org}/courses', 3],
  ['GET /organizations/{org}/courses/{id}', 2],
  ['GET /organizations/{org}/courses/{id}/lessons/{id}', 5],
  ['GET /organizations/{org}/progress', 3],
  ['GET /organizations/{org}/search', 2],
  ['GET /me/certificates', 2],
  ['GET /public/certificates/verify/{code}', 2],
];
const WORDS = ['python', 'datos', 'historia', 'marketing', 'cocina', 'finance', 'photography', 'guitar', 'biology'];
const hexCode = (g) => {
  const h = g.toString(16).toUpperCase().padStart(8, '0');
  return `CRS-${h.slice(0, 4)}-${h.slice(4)}`;
};

// ---- load generator (its own process): node bench/load.mjs --load <json> ----------------------------------
if (process.argv[2] === '--load-stdin') {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { users, duration, certificates } = JSON.parse(input);
  const totalWeight = MIX.reduce((a, [, w]) => a + w, 0);
  const pick = () => {
    let r = Math.random() * totalWeight;
    for (const [name, w] of MIX) if ((r -= w) < 0) return name;
    return MIX[0][0];
  };
  const stats = Object.fromEntries(MIX.map(([name]) => [name, { ms: [], statuses: {}, errors: 0 }]));
  let ipSeq = 0;
  const nextIp = () => {
    ipSeq++;
    return `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
  };
  const request = (agent, port, method, path, headers) =>
    new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, setCookie: res.headers['set-cookie'] ?? [] }));
      });
      req.on('error', () => resolve({ status: 0, setCookie: [] }));
      req.end();
    });
  const deadline = performance.now() + duration * 1000;
  const started = performance.now();
  await Promise.all(
    users.map(async (u) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const jar = new Map(u.cookies);
      const org = `/api/v1/organizations/${u.org}`;
      while (performance.now() < deadline) {
        const name = pick();
        const lesson = u.lessons[Math.floor(Math.random() * u.lessons.length)];
        const path = {
          'POST /auth/refresh': '/api/v1/auth/refresh',
          'GET /organizations/{org}/courses': `${org}/courses?limit=20&offset=${20 * Math.floor(Math.random() * 5)}`,
          'GET /organizations/{org}/courses/{id}': `${org}/courses/${u.course}`,
          'GET /organizations/{org}/courses/{id}/lessons/{id}': `${org}/courses/${u.course}/lessons/${lesson}`,
          'GET /organizations/{org}/progress': `${org}/progress`,
          'GET /organizations/{org}/search': `${org}/search?limit=20&q=${WORDS[Math.floor(Math.random() * WORDS.length)]}`,
          'GET /me/certificates': '/api/v1/me/certificates?limit=20',
          'GET /public/certificates/verify/{code}': `/api/v1/public/certificates/verify/${hexCode(Math.floor(Math.random() * certificates))}`,
        }[name];
        const isPublicVerify = name.startsWith('GET /public');
        const headers = { 'x-forwarded-for': isPublicVerify || name === 'POST /auth/refresh' ? nextIp() : u.ip };
        if (!isPublicVerify) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
        const t0 = performance.now();
        const { status, setCookie } = await request(agent, u.port, name.split(' ')[0], path, headers);
        const s = stats[name];
        s.ms.push(performance.now() - t0);
        s.statuses[status] = (s.statuses[status] ?? 0) + 1;
        if (status === 0) s.errors++;
        for (const c of setCookie) {
          const [pair] = c.split(';');
          const i = pair.indexOf('=');
          const k = pair.slice(0, i);
          const v = pair.slice(i + 1);
          if (!v || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) jar.delete(k);
          else jar.set(k, v);
        }
      }
      agent.destroy();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  const rows = MIX.map(([name]) => {
    const s = stats[name];
    const sorted = s.ms.sort((a, b) => a - b);
    const non2xx = Object.entries(s.statuses)
      .filter(([k]) => k !== '0' && !k.startsWith('2'))
      .reduce((a, [, n]) => a + n, 0);
    return {
      name,
      n: sorted.length,
      p50: pct(sorted, 50),
      p99: pct(sorted, 99),
      statuses: s.statuses,
      errors: s.errors,
      non2xx,
    };
  });
  const all = MIX.flatMap(([name]) => stats[name].ms).sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({ seconds, rows, total: { n: all.length, p50: pct(all, 50), p99: pct(all, 99) } }),
  );
  process.exit(0);
}

// ---- orchestration --------------------------------------------------------------------------------------
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 200);
const DURATION = Number(process.env.BENCH_DURATION ?? 60);
const COURSES = Number(process.env.BENCH_COURSES ?? 500);
const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? 100_000);

const db = await scratchDatabase('load');
const mail = await startMailSink();
const prefix = `lpbench:load:${Date.now()}`;
const env = { TRUST_PROXY: 'true', LOG_LEVEL: 'warn', PROCESS_JOBS: 'false' };
const ports = [await freePort(), await freePort()];
const apis = [];
apis.push(
  await startService({
    port: ports[0],
    databaseUrl: db.url,
    redisPrefix: prefix,
    smtpUrl: mail.url,
    // BENCH_SERVICE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the first instance.
    extraEnv: {
      ...env,
      ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
    },
  }),
);
apis.push(
  await startService({
    port: ports[1],
    databaseUrl: db.url,
    redisPrefix: prefix,
    smtpUrl: mail.url,
    extraEnv: { ...env, MIGRATE_ON_START: 'false' },
  }),
);
const worker = startWorker({
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  baseUrl: `http://localhost:${ports[0]}`,
});

const client = new pg.Client({ connectionString: db.url });
await client.connect();

/** Signs in through the email code on instance `port` from address `ip`; returns the cookie pairs. */
async function signIn(port, email, ip) {
  const base = `http://127.0.0.1:${port}`;
  const codePromise = mail.nextCode(email);
  const req = await fetch(`${base}/api/v1/auth/otp/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ email }),
  });
  if (req.status !== 200) throw new Error(`otp/request answered ${req.status}`);
  const code = await codePromise;
  const res = await fetch(`${base}/api/v1/auth/otp/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ email, code }),
  });
  if (res.status !== 200) throw new Error(`otp/verify answered ${res.status}`);
  const cookies = res.headers.getSetCookie().map((c) => {
    const pair = c.split(';')[0];
    const i = pair.indexOf('=');
    return [pair.slice(0, i), pair.slice(i + 1)];
  });
  const cookie = cookies.map(([k, v]) => `${k}=${v}`).join('; ');
  const call = jsonCaller(base, { cookie, 'x-forwarded-for': ip });
  await call('PUT', '/api/v1/me/onboarding', { name: `Learner ${email}`, locale: 'en', adult_confirmed: true });
  return { cookies, call };
}

try {
  const seedStart = performance.now();
  // Catalog: COURSES public published courses of 5 lessons each.
  const subjects = [
    'Python',
    'Datos',
    'Historia',
    'Marketing',
    'Cocina',
    'Finance',
    'Photography',
    'Guitar',
    'Biology',
  ];
  await client.query(
    `INSERT INTO courses (slug, title, summary, description_md, language, level, tags, visibility, status, estimated_minutes, published_at)
     SELECT 'lc-' || g, s || ' course ' || g, 'Learn ' || s || ' step by step, part ' || g,
       '# ' || s || E'\n\nA course about ' || s || ' with exercises and examples. ' || repeat('Practice makes progress. ', 20),
       CASE WHEN g % 2 = 0 THEN 'en' ELSE 'es' END, 'beginner', ARRAY[lower(s)], 'public', 'published', 60,
       now() - make_interval(mins => g)
     FROM (SELECT g, ($2::text[])[1 + g % array_length($2::text[], 1)] AS s FROM generate_series(1, $1) AS g) x`,
    [COURSES, subjects],
  );
  await client.query(
    `INSERT INTO lessons (course_id, position, title, content_md, language)
     SELECT c.id, p, 'Lesson ' || p || ' of ' || c.title,
       '## ' || c.title || E'\n\n' || repeat('This lesson explains one idea of ' || c.title || ' with a worked example. ', 30), c.language
     FROM courses c CROSS JOIN generate_series(1, 5) AS p WHERE c.slug LIKE 'lc-%'`,
  );

  // An owner and an organization; CONNECTIONS learners, each signed in through the email code on its instance.
  const owner = await signIn(ports[0], `owner.${Date.now()}@load.test`, '10.250.0.1');
  const orgId = (await owner.call('POST', '/api/v1/organizations', { name: 'Load Org' })).organization.id;
  const courseRows = (
    await client.query(
      `SELECT c.id, array_agg(l.id ORDER BY l.position) AS lessons FROM courses c JOIN lessons l ON l.course_id = c.id
       WHERE c.slug LIKE 'lc-%' GROUP BY c.id ORDER BY c.id LIMIT 50`,
    )
  ).rows;
  const users = [];
  const stamp = Date.now();
  for (let i = 0; i < CONNECTIONS; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, CONNECTIONS - i) }, async (_, j) => {
        const n = i + j;
        const port = ports[n % 2];
        const ip = `10.251.${n >> 8}.${n & 255}`;
        const email = `learner${n}.${stamp}@load.test`;
        const s = await signIn(port, email, ip);
        return { n, port, ip, email, s };
      }),
    );
    users.push(...batch);
  }
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM users WHERE email = ANY($2::text[])`,
    [orgId, users.map((u) => u.email)],
  );
  // Each learner enrolls (through the API) in one of 50 courses and completes its first lesson.
  for (let i = 0; i < users.length; i += 10) {
    await Promise.all(
      users.slice(i, i + 10).map(async (u) => {
        const c = courseRows[u.n % courseRows.length];
        u.course = c.id;
        u.lessons = c.lessons;
        await u.s.call('POST', `/api/v1/organizations/${orgId}/courses/${c.id}/enroll`);
        await u.s.call('POST', `/api/v1/organizations/${orgId}/courses/${c.id}/lessons/${c.lessons[0]}/complete`);
      }),
    );
  }
  // CERTIFICATES certificates of this organization, spread over the learners and courses (each pair once).
  await client.query(
    `CREATE TEMP TABLE people AS SELECT row_number() OVER (ORDER BY email) - 1 AS n, id, name FROM users WHERE email = ANY($1::text[])`,
    [users.map((u) => u.email)],
  );
  await client.query(
    `CREATE TEMP TABLE cs AS SELECT row_number() OVER (ORDER BY slug) - 1 AS n, id FROM courses WHERE slug LIKE 'lc-%'`,
  );
  const people = users.length;
  await client.query(
    `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title, status, issued_at)
     SELECT 'CRS-' || substr(h, 1, 4) || '-' || substr(h, 5, 4), 'course', $1, p.id, coalesce(p.name, 'Learner'), cs.id,
       'Course ' || (g / $2), 'active', now() - make_interval(secs => g)
     FROM (SELECT g, lpad(upper(to_hex(g)), 8, '0') AS h FROM generate_series(0, $3 - 1) AS g) x
     JOIN people p ON p.n = x.g % $2
     JOIN cs ON cs.n = (x.g / $2) % $4`,
    [orgId, people, CERTIFICATES, COURSES],
  );
  await client.query('VACUUM ANALYZE');
  const seedMs = performance.now() - seedStart;

  const loadavgBefore = os.loadavg()[0];
  const spec = {
    duration: DURATION,
    certificates: CERTIFICATES,
    users: users.map((u) => ({
      port: u.port,
      ip: u.ip,
      org: orgId,
      course: u.course,
      lessons: u.lessons,
      cookies: u.s.cookies,
    })),
  };
  // The spec is large (cookies of every learner): pass it through stdin instead of argv.
  const res = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/load.mjs', '--load-stdin'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}`))));
    child.stdin.end(JSON.stringify(spec));
  });
  const loadavgAfter = os.loadavg()[0];

  const pad = (s, n) => String(s).padEnd(n);
  const num = (x, n, d = 1) => x.toFixed(d).padStart(n);
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores; 2 API instances (PROCESS_JOBS=false) + 1 worker, one PostgreSQL + Redis`,
  );
  console.log(
    `seed ${(seedMs / 1000).toFixed(1)} s: ${COURSES} courses x 5 lessons, ${users.length} learners signed in, enrolled, ${CERTIFICATES} certificates`,
  );
  console.log(
    `${CONNECTIONS} connections (one learner each), ${DURATION} s closed loop; load average ${loadavgBefore.toFixed(1)} -> ${loadavgAfter.toFixed(1)}`,
  );
  console.log(
    `${pad('route', 52)} ${'requests'.padStart(8)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  errors non2xx statuses`,
  );
  for (const r of res.rows)
    console.log(
      `${pad(r.name, 52)} ${String(r.n).padStart(8)} ${num(r.n / res.seconds, 8)} ${num(r.p50, 8)} ${num(r.p99, 8)}  ${String(r.errors).padStart(6)} ${String(r.non2xx).padStart(6)} ${JSON.stringify(r.statuses)}`,
    );
  const errors = res.rows.reduce((a, r) => a + r.errors, 0);
  const non2xx = res.rows.reduce((a, r) => a + r.non2xx, 0);
  const fivexx = res.rows.reduce(
    (a, r) =>
      a +
      Object.entries(r.statuses)
        .filter(([k]) => k.startsWith('5'))
        .reduce((b, [, n]) => b + n, 0),
    0,
  );
  console.log(
    `${pad('all', 52)} ${String(res.total.n).padStart(8)} ${num(res.total.n / res.seconds, 8)} ${num(res.total.p50, 8)} ${num(res.total.p99, 8)}  ${String(errors).padStart(6)} ${String(non2xx).padStart(6)}  5xx=${fivexx}`,
  );
} finally {
  await client.end();
  await stop(worker);
  for (const a of apis) await stop(a);
  await mail.close();
  await db.drop();
}
