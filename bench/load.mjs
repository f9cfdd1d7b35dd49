// npm run bench:load: a realistic mix of learner traffic against TWO API instances (PROCESS_JOBS=false) and one
// worker process on one PostgreSQL and one Redis, in a scratch database the script seeds. 200 virtual learners
// (each its own keep-alive connection, its own session and its own address), closed loop for 60 s, each request
// picked at random with the weights of MIX: session refresh, catalog, course detail, lesson, progress, search, my
// certificates, public verification. Learners alternate between the two instances. Reports req/s, p50/p99 per
// route, connection errors and non-2xx statuses.
// Knobs: BENCH_CONNECTIONS (200), BENCH_DURATION (60 s), BENCH_COURSES (500), BENCH_CERTIFICATES (100000),
// BENCH_SERVICE_NODE_OPTIONS (node options of the first instance, e.g. a CPU profile).
//
// --open (npm run bench:load -- --open): after that closed loop, the capacity figure of the same run. Requests ARRIVE
// at a fixed rate (open loop: a slow answer does not slow the arrivals; latency counts from the planned arrival),
// each from a random learner with the learner mix OPEN_MIX (catalog, course, lesson, complete, quiz, progress,
// notifications, leaderboard, flashcards due), BENCH_STEP_SECONDS (60) per step, from BENCH_OPEN_START (100) req/s up
// by BENCH_OPEN_STEP (50) until p99 > 250 ms or an error (a refused connection or any answer but 2xx). Capacity: the
// highest rate with p99 <= 250 ms and 0 errors. Then the database ceiling: a third instance on a recording proxy
// (bench/sql-recorder.mjs) answers BENCH_RECORD_SAMPLES (20) requests of each kind one at a time, its statements
// recorded per request; they are replayed through one `pg` pool of 2 x DATABASE_POOL_SIZE connections (what the two
// instances hold) by as many concurrent replayers, for BENCH_STEP_SECONDS, without the service: the requests/s the
// database alone sustains for this mix. Prints capacity, ceiling, their ratio (target >= 0.5) and the closed-loop
// throughput (target: capacity >= 2 x 377 req/s).
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import pg from 'pg';
import { freePort, jsonCaller, scratchDatabase, startMailSink, startService, startWorker, stop } from './lib.mjs';
import { replay, startRecorder } from './sql-recorder.mjs';

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

// The learner's mix of the open loop (weights).
const OPEN_MIX = [
  ['GET catalog', 3],
  ['GET course', 2],
  ['GET lesson', 5],
  ['POST complete', 1],
  ['POST quiz', 1],
  ['GET progress', 2],
  ['GET notifications', 2],
  ['GET leaderboard', 1],
  ['GET flashcards due', 1],
];
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** The method, path and body of one request of kind `name` by learner `u`. */
function openRequest(name, u) {
  const org = `/api/v1/organizations/${u.org}`;
  const course = `${org}/courses/${u.course}`;
  const rest = u.lessons.slice(0, -1);
  switch (name) {
    case 'GET catalog':
      return ['GET', `${org}/courses?limit=20&offset=${20 * Math.floor(Math.random() * 5)}`];
    case 'GET course':
      return ['GET', course];
    case 'GET lesson':
      return ['GET', `${course}/lessons/${u.lessons[Math.floor(Math.random() * u.lessons.length)]}`];
    case 'POST complete':
      return ['POST', `${course}/lessons/${rest[Math.floor(Math.random() * rest.length)]}/complete`];
    case 'POST quiz':
      return [
        'POST',
        `${course}/lessons/${u.lessons.at(-1)}/quiz/submissions`,
        JSON.stringify({ answers: [{ question_id: u.quiz.question, option_ids: [u.quiz.option] }] }),
      ];
    case 'GET progress':
      return ['GET', `${org}/progress`];
    case 'GET notifications':
      return ['GET', '/api/v1/notifications?limit=20'];
    case 'GET leaderboard':
      return ['GET', `${org}/leaderboard?limit=10&around=5`];
    default:
      return ['GET', `${org}/flashcards/due?limit=20`];
  }
}

// ---- open-loop generator (its own process): node bench/load.mjs --open-stdin ----------------------------
if (process.argv[2] === '--open-stdin') {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { users, start, step, seconds, p99Limit, maxSteps } = JSON.parse(input);
  const totalWeight = OPEN_MIX.reduce((a, [, w]) => a + w, 0);
  const pick = () => {
    let r = Math.random() * totalWeight;
    for (const [name, w] of OPEN_MIX) if ((r -= w) < 0) return name;
    return OPEN_MIX[0][0];
  };
  // One keep-alive agent per instance, as a balancer keeps a pool of connections to each.
  const agents = new Map();
  const agentOf = (port) => {
    if (!agents.has(port)) agents.set(port, new http.Agent({ keepAlive: true, maxSockets: 512 }));
    return agents.get(port);
  };
  const jars = users.map((u) => new Map(u.cookies));
  const send = (u, jar, method, path, body) =>
    new Promise((resolve) => {
      const headers = { 'x-forwarded-for': u.ip, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = http.request(
        { host: '127.0.0.1', port: u.port, method, path, headers, agent: agentOf(u.port) },
        (res) => {
          res.resume();
          res.on('end', () => {
            for (const c of res.headers['set-cookie'] ?? []) {
              const [pair] = c.split(';');
              const i = pair.indexOf('=');
              if (/max-age=0|expires=thu, 01 jan 1970/i.test(c)) jar.delete(pair.slice(0, i));
              else jar.set(pair.slice(0, i), pair.slice(i + 1));
            }
            resolve(res.statusCode);
          });
        },
      );
      req.on('error', () => resolve(0));
      req.end(body);
    });
  const steps = [];
  for (let n = 0, rate = start; n < maxSteps; n++, rate += step) {
    // Fresh access cookies for every learner before each step (a step outlives none, but the run may).
    await Promise.all(users.map((u, i) => send(u, jars[i], 'POST', '/api/v1/auth/refresh')));
    const stats = Object.fromEntries(OPEN_MIX.map(([name]) => [name, { ms: [], statuses: {} }]));
    const total = Math.round(rate * seconds);
    const begin = performance.now();
    const inFlight = new Set();
    let sent = 0;
    let maxInFlight = 0;
    while (sent < total) {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - begin) / 1000) * rate));
      while (sent < due) {
        const planned = begin + (sent * 1000) / rate;
        sent++;
        const i = Math.floor(Math.random() * users.length);
        const name = pick();
        const [method, path, body] = openRequest(name, users[i]);
        const p = send(users[i], jars[i], method, path, body).then((status) => {
          const s = stats[name];
          s.ms.push(performance.now() - planned);
          s.statuses[status] = (s.statuses[status] ?? 0) + 1;
        });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      maxInFlight = Math.max(maxInFlight, inFlight.size);
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inFlight);
    const elapsed = (performance.now() - begin) / 1000;
    const all = OPEN_MIX.flatMap(([name]) => stats[name].ms).sort((a, b) => a - b);
    const errors = OPEN_MIX.reduce(
      (a, [name]) =>
        a +
        Object.entries(stats[name].statuses)
          .filter(([k]) => !k.startsWith('2'))
          .reduce((b, [, c]) => b + c, 0),
      0,
    );
    const row = {
      rate,
      sent: total,
      achieved: total / elapsed,
      p50: pct(all, 50),
      p99: pct(all, 99),
      errors,
      maxInFlight,
      routes: OPEN_MIX.map(([name]) => {
        const sorted = stats[name].ms.sort((a, b) => a - b);
        return { name, n: sorted.length, p50: pct(sorted, 50), p99: pct(sorted, 99), statuses: stats[name].statuses };
      }),
    };
    steps.push(row);
    process.stderr.write(
      `  open loop ${rate} req/s: p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms, errors ${errors}, most in flight ${maxInFlight}\n`,
    );
    if (row.p99 > p99Limit || errors > 0) break;
  }
  for (const a of agents.values()) a.destroy();
  process.stdout.write(JSON.stringify({ steps, cookies: jars.map((j) => [...j]) }));
  process.exit(0);
}

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
  const jars = users.map((u) => new Map(u.cookies));
  await Promise.all(
    users.map(async (u, n) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const jar = jars[n];
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
    JSON.stringify({
      seconds,
      rows,
      total: { n: all.length, p50: pct(all, 50), p99: pct(all, 99) },
      cookies: jars.map((j) => [...j]),
    }),
  );
  process.exit(0);
}

// ---- orchestration --------------------------------------------------------------------------------------
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 200);
const DURATION = Number(process.env.BENCH_DURATION ?? 60);
const COURSES = Number(process.env.BENCH_COURSES ?? 500);
const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? 100_000);
const OPEN = process.argv.includes('--open');
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 60);
const OPEN_START = Number(process.env.BENCH_OPEN_START ?? 100);
const OPEN_STEP = Number(process.env.BENCH_OPEN_STEP ?? 50);
const OPEN_MAX_STEPS = Number(process.env.BENCH_OPEN_MAX_STEPS ?? 40);
const RECORD_SAMPLES = Number(process.env.BENCH_RECORD_SAMPLES ?? 20);
const POOL_SIZE = Number(process.env.DATABASE_POOL_SIZE ?? 10);
const P99_LIMIT_MS = 250;

const db = await scratchDatabase('load');
const mail = await startMailSink();
const prefix = `lpbench:load:${Date.now()}`;
// --open: one public address for every instance (a session made on one is good on the others, as behind a balancer).
const env = {
  TRUST_PROXY: 'true',
  LOG_LEVEL: 'warn',
  PROCESS_JOBS: 'false',
  ...(OPEN ? { BASE_URL: 'http://localhost:8000' } : {}),
};
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
  baseUrl: OPEN ? 'http://localhost:8000' : `http://localhost:${ports[0]}`,
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

  if (OPEN) {
    // The last lesson of each course has a one-question quiz (the open loop submits it).
    await client.query(
      `INSERT INTO quizzes (lesson_id, passing_score)
       SELECT l.id, 100 FROM lessons l JOIN courses c ON c.id = l.course_id WHERE c.slug LIKE 'lc-%' AND l.position = 5`,
    );
    await client.query(
      `INSERT INTO quiz_questions (quiz_id, position, prompt, kind) SELECT id, 1, 'Which one is right?', 'single' FROM quizzes`,
    );
    await client.query(
      `INSERT INTO quiz_options (question_id, position, text, correct)
       SELECT id, p, CASE p WHEN 1 THEN 'This one' ELSE 'Not this one' END, p = 1 FROM quiz_questions CROSS JOIN generate_series(1, 2) AS p`,
    );
  }

  // An owner and an organization; CONNECTIONS learners, each signed in through the email code on its instance.
  const owner = await signIn(ports[0], `owner.${Date.now()}@load.test`, '10.250.0.1');
  const orgId = (await owner.call('POST', '/api/v1/organizations', { name: 'Load Org' })).organization.id;
  const courseRows = (
    await client.query(
      `SELECT c.id, array_agg(l.id ORDER BY l.position) AS lessons,
         (SELECT json_build_object('question', qq.id, 'option', o.id) FROM lessons l5 JOIN quizzes q ON q.lesson_id = l5.id
            JOIN quiz_questions qq ON qq.quiz_id = q.id JOIN quiz_options o ON o.question_id = qq.id AND o.correct
          WHERE l5.course_id = c.id LIMIT 1) AS quiz
       FROM courses c JOIN lessons l ON l.course_id = c.id
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
        u.quiz = c.quiz;
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
  if (OPEN) {
    const closedRps = res.total.n / res.seconds;
    // The closed loop rotated the learners' refresh tokens: carry on with its cookies.
    res.cookies.forEach((c, i) => (users[i].s.cookies = c));
    await openLoopAndCeiling({ users, orgId, closedRps, ports });
  }
} finally {
  await client.end();
  await stop(worker);
  for (const a of apis) await stop(a);
  await mail.close();
  await db.drop();
}

/** Runs a child (`--open-stdin`) with `spec` on stdin; resolves its JSON answer. */
function child(mode, spec) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['bench/load.mjs', mode], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode} exited ${code}`))));
    c.stdin.end(JSON.stringify(spec));
  });
}

/** The open-loop steps, the recording pass and the database ceiling; prints the figure. */
async function openLoopAndCeiling({ users, orgId, closedRps, ports }) {
  const learners = users.map((u) => ({
    port: u.port,
    ip: u.ip,
    org: orgId,
    course: u.course,
    lessons: u.lessons,
    quiz: u.quiz,
    cookies: u.s.cookies,
  }));
  const loadavgOpen = os.loadavg()[0];
  console.log(
    `\nOpen loop: ${STEP_SECONDS} s per step from ${OPEN_START} req/s by ${OPEN_STEP}, until p99 > ${P99_LIMIT_MS} ms or an error; load average ${loadavgOpen.toFixed(1)}`,
  );
  const open = await child('--open-stdin', {
    users: learners,
    start: OPEN_START,
    step: OPEN_STEP,
    seconds: STEP_SECONDS,
    p99Limit: P99_LIMIT_MS,
    maxSteps: OPEN_MAX_STEPS,
  });
  open.cookies.forEach((c, i) => (learners[i].cookies = c));
  const passed = open.steps.filter((r) => r.p99 <= P99_LIMIT_MS && r.errors === 0);
  const capacity = passed.length > 0 ? passed[passed.length - 1].rate : 0;
  const last = open.steps[open.steps.length - 1];
  const atCapacity = passed[passed.length - 1] ?? last;
  console.log(
    `${(passed.length ? `route at ${atCapacity.rate} req/s` : `route at ${last.rate} req/s (failed)`).padEnd(28)} ${'n'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  statuses`,
  );
  for (const r of atCapacity.routes)
    console.log(
      `${r.name.padEnd(28)} ${String(r.n).padStart(7)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}  ${JSON.stringify(r.statuses)}`,
    );

  // Recording pass: a third instance on the recording proxy, one request at a time.
  const recorder = await startRecorder(db.url);
  const recordPort = await freePort();
  const recordingApi = await startService({
    port: recordPort,
    databaseUrl: recorder.url,
    redisPrefix: prefix,
    smtpUrl: mail.url,
    extraEnv: { ...env, MIGRATE_ON_START: 'false' },
  });
  const recordings = Object.fromEntries(OPEN_MIX.map(([name]) => [name, []]));
  let recordFailures = 0;
  try {
    const once = async (u, name) => {
      const [method, path, body] = openRequest(name, u);
      const jar = new Map(u.cookies);
      const res = await fetch(`http://127.0.0.1:${recordPort}${path}`, {
        method,
        headers: {
          'x-forwarded-for': u.ip,
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body,
      });
      await res.arrayBuffer();
      // Statements the service sends after answering (none expected) belong to this request too.
      await new Promise((r) => setTimeout(r, 20));
      return res.status;
    };
    for (const [name] of OPEN_MIX) await once(learners[0], name); // warm: connections, named statements
    recorder.take();
    for (const [name] of OPEN_MIX) {
      for (let k = 0; k < RECORD_SAMPLES; k++) {
        const status = await once(learners[(k * 7 + name.length) % learners.length], name);
        const statements = recorder.take();
        if (status < 200 || status >= 300) recordFailures++;
        else recordings[name].push(statements);
      }
    }
  } finally {
    await stop(recordingApi);
    await recorder.close();
  }

  // The ceiling: the recorded statements replayed through one pool, as many replayers as the two instances' pools
  // hold connections, in the mix's proportions.
  const connections = 2 * POOL_SIZE;
  const pool = new pg.Pool({ connectionString: db.url, max: connections });
  const totalWeight = OPEN_MIX.reduce((a, [, w]) => a + w, 0);
  const pick = () => {
    let r = Math.random() * totalWeight;
    for (const [name, w] of OPEN_MIX) if ((r -= w) < 0) return name;
    return OPEN_MIX[0][0];
  };
  let replayed = 0;
  let failedStatements = 0;
  const replayErrors = new Map();
  const replayMs = [];
  const deadline = performance.now() + STEP_SECONDS * 1000;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const samples = recordings[pick()];
        if (samples.length === 0) continue;
        const t0 = performance.now();
        const failed = await replay(pool, samples[Math.floor(Math.random() * samples.length)], replayErrors);
        failedStatements += failed;
        replayMs.push(performance.now() - t0);
        replayed++;
      }
    }),
  );
  const ceiling = replayed / ((performance.now() - begin) / 1000);
  await pool.end();
  const statementsPer = OPEN_MIX.map(([name]) => {
    const list = recordings[name];
    const mean = list.reduce((a, x) => a + x.length, 0) / Math.max(1, list.length);
    return `${name} ${mean.toFixed(1)}`;
  }).join(', ');
  replayMs.sort((a, b) => a - b);

  console.log(`\nstatements per request (recorded, ${RECORD_SAMPLES} of each kind): ${statementsPer}`);
  console.log(
    `database ceiling: ${ceiling.toFixed(0)} req/s (${connections} connections, ${connections} concurrent replayers, ` +
      `replay p50 ${pct(replayMs, 50).toFixed(1)} ms p99 ${pct(replayMs, 99).toFixed(1)} ms; ` +
      `${failedStatements} replayed statements failed, ${recordFailures} recording requests not 2xx)`,
  );
  for (const [message, n] of [...replayErrors].slice(0, 5)) console.log(`  replay failure x${n}: ${message}`);
  console.log(
    `capacity: ${capacity} req/s (p99 <= ${P99_LIMIT_MS} ms, 0 errors; ${passed.length === open.steps.length ? 'no step failed' : `failed at ${last.rate} req/s: p99 ${last.p99.toFixed(0)} ms, ${last.errors} errors`})`,
  );
  console.log(`capacity / ceiling: ${(capacity / ceiling).toFixed(2)} (target >= 0.5)`);
  console.log(
    `closed loop of this run: ${closedRps.toFixed(0)} req/s; capacity / 377 req/s: ${(capacity / 377).toFixed(2)} (target >= 2); ` +
      `load average ${loadavgOpen.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}`,
  );
}
