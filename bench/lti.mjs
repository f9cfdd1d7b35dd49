// npm run bench:lti: the three LTI 1.3 platform figures of extensions-v3 section 8, each beside a baseline measured
// in the same run on the same service.
// 1. Launch: the platform's steps of a launch (GET .../lti/launch 302, GET /lti/authorize answering the form with a
//    signed id_token) at 50 concurrent launches, p99 of the pair; baseline: GET /api/v1/auth/me with the same cookie.
// 2. AGS scores: BENCH_LTI_SCORES (10 000) POST .../scores from 8 connections, FullyGraded and Completed, for
//    learners of one lesson (10 scores each): scores/s, and every completion applied exactly once; baseline: /version
//    requests/s from 8 connections.
// 3. NRPS: a course of BENCH_LTI_MEMBERS (10 000) enrolled learners read in pages of 1 000; baseline: the same rows
//    by one SQL query.
// The tool is registered with a public JWK of a key made here (no request leaves the machine), through SQL.
// Besides the timings, the SQL statements the service sends per launch and per score (bench/count-statements.mjs,
// preloaded with --import; background work of the same process included), which do not depend on the machine's load.
// BENCH_SERVICE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the service (written when it stops).
// BENCH_LTI_SPLIT=1 posts the scores in two phases instead of one stream: every learner's first score (the first
// completions), the background work settled, then the repeats; and prints for each phase its statements and the
// service's CPU time per score (from /proc, whatever the machine's load) beside its rate. With BENCH_CPU_WINDOW_DIR
// set (and `--import ./bench/cpu-window.mjs` in BENCH_SERVICE_NODE_OPTIONS) each phase is also a CPU profile
// (1.cpuprofile: first completions, 2.cpuprofile: repeats), and with BENCH_STATEMENTS_TEXT_FILE set each phase's
// statements by text, per score (<file>.1.json, <file>.2.json). BENCH_LTI_PARTS=ags runs the AGS part alone (one launch
// for the line item, no launch figure, no NRPS).
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SignJWT, exportJWK, decodeJwt } from 'jose';
import { cpuUs } from './cpu.mjs';
import { freePort, scratchDatabase, signInCookie, startMailSink, startService, stop } from './lib.mjs';

const LAUNCHES = Number(process.env.BENCH_LTI_LAUNCHES ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_LTI_CONCURRENCY ?? 50);
const SCORES = Number(process.env.BENCH_LTI_SCORES ?? 10_000);
const MEMBERS = Number(process.env.BENCH_LTI_MEMBERS ?? 10_000);
const SCORES_PER_LEARNER = 10;
const SPLIT = process.env.BENCH_LTI_SPLIT === '1';
const AGS_ONLY = process.env.BENCH_LTI_PARTS === 'ags';
const LEARNERS = Math.max(1, Math.ceil(SCORES / SCORES_PER_LEARNER));
const AGS = 'https://purl.imsglobal.org/spec/lti-ags/scope/';
const NRPS = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';

const p = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
let ipCounter = 0;
const nextIp = () => `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}`;

/** Runs `total` tasks with `concurrency` workers; returns each task's duration in ms. */
async function pool(total, concurrency, task) {
  const times = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        times.push(performance.now() - t0);
      }
    }),
  );
  return times;
}

const statementsFile = join(tmpdir(), `lti-bench-statements-${process.pid}`);
const counter = new URL('./count-statements.mjs', import.meta.url).href;
const db = await scratchDatabase('lti');
const mail = await startMailSink();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const api = await startService({
  // A fresh database migrates at start: on a busy machine that takes longer than the default minute.
  startTimeoutMs: 180_000,
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:lti:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: {
    LOG_LEVEL: 'warn',
    TRUST_PROXY: 'true',
    API_BUDGET_SESSION_PER_MINUTE: '0',
    API_BUDGET_ANONYMOUS_PER_MINUTE: '0',
    LTI_SERVICE_PER_MINUTE: '0',
    BENCH_STATEMENTS_FILE: statementsFile,
    NODE_OPTIONS: `--import ${counter} ${process.env.BENCH_SERVICE_NODE_OPTIONS ?? ''}`.trim(),
  },
});

/** The service's SQL statements so far (it writes the count on SIGUSR2). */
async function statementsSoFar() {
  rmSync(statementsFile, { force: true });
  api.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    try {
      return Number(readFileSync(statementsFile, 'utf8'));
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error('the service did not report its statement count');
}
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const email = `launcher-${Date.now()}@bench.test`;
  const cookie = await signInCookie(`http://localhost:${port}`, mail, email);
  const [{ id: learnerId }] = (await client.query(`SELECT id FROM users WHERE email = $1`, [email])).rows;
  await client.query(`UPDATE users SET name = 'Bench Learner', age_bracket = 'adult' WHERE id = $1`, [learnerId]);

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = await exportJWK(publicKey);
  const [{ id: toolId, client_id: clientId }] = (
    await client.query(
      `INSERT INTO lti_tools (name, initiate_login_url, redirect_uris, target_link_uri, public_jwk, scopes, registered_by,
         created_at, updated_at)
       VALUES ('Bench tool', 'https://tool.example/login', '{https://tool.example/launch}', 'https://tool.example/launch',
         $1, $2, 'manual', now(), now()) RETURNING id, client_id`,
      [JSON.stringify({ kty: jwk.kty, n: jwk.n, e: jwk.e }), [`${AGS}lineitem`, `${AGS}score`, NRPS]],
    )
  ).rows;
  const [{ id: orgId }] = (
    await client.query(
      `INSERT INTO organizations (name, slug) VALUES ('LTI Bench', 'lti-bench-${Date.now()}') RETURNING id`,
    )
  ).rows;
  const [{ id: courseId }] = (
    await client.query(
      `INSERT INTO courses (slug, title, language, level, status, visibility, published_at)
       VALUES ('lti-bench-${Date.now()}', 'LTI bench', 'en', 'beginner', 'published', 'public', now()) RETURNING id`,
    )
  ).rows;
  const [{ id: lessonId }] = (
    await client.query(
      `INSERT INTO lessons (course_id, position, title, language) VALUES ($1, 1, 'Lab', 'en') RETURNING id`,
      [courseId],
    )
  ).rows;
  await client.query(`INSERT INTO lessons (course_id, position, title, language) VALUES ($1, 2, 'Reading', 'en')`, [
    courseId,
  ]);
  await client.query(
    `INSERT INTO lti_lesson_links (lesson_id, course_id, tool_id, score_maximum) VALUES ($1, $2, $3, 10)`,
    [lessonId, courseId, toolId],
  );
  // The learner of the launches, the scored learners, and the roster.
  await client.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'student')`, [
    orgId,
    learnerId,
  ]);
  await client.query(`INSERT INTO enrollments (organization_id, user_id, course_id) VALUES ($1, $2, $3)`, [
    orgId,
    learnerId,
    courseId,
  ]);
  const people = Math.max(LEARNERS, MEMBERS);
  await client.query(
    `INSERT INTO users (email, username, name, age_bracket, created_at, updated_at)
     SELECT 'lti' || i || '@bench.test', 'lti' || i, 'Member ' || i, 'adult', now(), now() FROM generate_series(1, $1) AS i`,
    [people],
  );
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM users WHERE email LIKE 'lti%@bench.test'`,
    [orgId],
  );
  await client.query(
    `INSERT INTO enrollments (organization_id, user_id, course_id)
     SELECT $1, id, $2 FROM users WHERE email LIKE 'lti%@bench.test'`,
    [orgId, courseId],
  );
  await client.query('VACUUM ANALYZE');

  const launchPath = `/api/v1/organizations/${orgId}/courses/${courseId}/lessons/${lessonId}/lti/launch`;
  let lastIdToken = '';
  async function launchOnce(i) {
    const ip = nextIp();
    const start = await fetch(base + launchPath, { redirect: 'manual', headers: { cookie, 'x-forwarded-for': ip } });
    if (start.status !== 302) throw new Error(`launch answered ${start.status}: ${await start.text()}`);
    const login = new URL(start.headers.get('location'));
    const q = new URLSearchParams({
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: clientId,
      redirect_uri: 'https://tool.example/launch',
      login_hint: login.searchParams.get('login_hint'),
      lti_message_hint: login.searchParams.get('lti_message_hint'),
      state: `s${i}`,
      nonce: randomUUID(),
    });
    const auth = await fetch(`${base}/api/v1/lti/authorize?${q}`, { headers: { cookie, 'x-forwarded-for': ip } });
    const html = await auth.text();
    const token = /name="id_token" value="([^"]+)"/.exec(html)?.[1];
    if (auth.status !== 200 || !token) throw new Error(`authorize answered ${auth.status}: ${html.slice(0, 200)}`);
    lastIdToken = token;
  }
  const launches = AGS_ONLY ? 1 : LAUNCHES;
  await pool(Math.min(100, launches), CONCURRENCY, launchOnce); // warm-up
  const launchSql0 = await statementsSoFar();
  const launchTimes = await pool(launches, CONCURRENCY, launchOnce);
  const launchSql = ((await statementsSoFar()) - launchSql0) / launches;
  await pool(Math.min(100, launches), CONCURRENCY, async () => {
    await fetch(`${base}/api/v1/auth/me`, { headers: { cookie, 'x-forwarded-for': nextIp() } });
  });
  const meTimes = await pool(launches, CONCURRENCY, async () => {
    const res = await fetch(`${base}/api/v1/auth/me`, { headers: { cookie, 'x-forwarded-for': nextIp() } });
    if (res.status !== 200) throw new Error(`/auth/me answered ${res.status}`);
    await res.arrayBuffer();
  });

  // Service token (client assertion signed with the tool's key), then the scores.
  const claims = decodeJwt(lastIdToken);
  const lineItem = claims['https://purl.imsglobal.org/spec/lti-ags/claim/endpoint'].lineitem;
  let memberships = claims['https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice'].context_memberships_url;
  const assertion = await new SignJWT({ jti: randomUUID() })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(`http://localhost:${port}/api/v1/lti/token`)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(privateKey);
  const tokenRes = await fetch(`${base}/api/v1/lti/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      scope: `${AGS}score ${NRPS}`,
    }),
  });
  const { access_token: accessToken } = await tokenRes.json();
  if (!accessToken) throw new Error(`token answered ${tokenRes.status}`);
  const learners = (
    await client.query(`SELECT id FROM users WHERE email LIKE 'lti%@bench.test' ORDER BY id LIMIT $1`, [LEARNERS])
  ).rows.map((r) => r.id);
  const scoreUrl = `${base}${new URL(lineItem).pathname}/scores`;
  const t0 = Date.now();
  const postScore = async (i) => {
    const res = await fetch(scoreUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/vnd.ims.lis.v1.score+json' },
      body: JSON.stringify({
        userId: learners[i % learners.length],
        scoreGiven: 1 + (i % 10),
        scoreMaximum: 10,
        activityProgress: 'Completed',
        gradingProgress: 'FullyGraded',
        timestamp: new Date(t0 + i).toISOString(),
      }),
    });
    if (res.status !== 204) throw new Error(`score answered ${res.status}: ${await res.text()}`);
  };
  /** Waits until no event delivery is pending (the completions' background work), then a little more. */
  const settled = async () => {
    for (let i = 0; i < 600; i++) {
      const [{ n }] = (
        await client.query(
          `SELECT count(*)::int AS n FROM domain_event_deliveries WHERE status = 'pending' AND run_after <= now()`,
        )
      ).rows;
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
  };
  // With BENCH_STATEMENTS_TEXT_FILE (count-statements.mjs), each phase's statements by text go to <file>.<phase>.json.
  const textFile = process.env.BENCH_STATEMENTS_TEXT_FILE;
  const textCounts = () => (textFile ? JSON.parse(readFileSync(textFile, 'utf8')) : {});
  const scoreSql0 = await statementsSoFar();
  const phases = [];
  let scoresMs;
  if (!SPLIT) {
    const s0 = performance.now();
    await pool(SCORES, 8, postScore);
    scoresMs = performance.now() - s0;
  } else {
    // Phase 1: the first score of every learner; phase 2: the repeats. Each phase's statements and CPU include its
    // background work (settled before the phase's count is read).
    scoresMs = 0;
    const ranges = [
      ['first completions', 0, learners.length],
      ['repeats', learners.length, SCORES],
    ];
    for (const [name, from, to] of ranges) {
      if (to <= from) continue;
      const sql0 = await statementsSoFar();
      const text0 = textCounts();
      const cpu0 = cpuUs(api.pid);
      if (process.env.BENCH_CPU_WINDOW_DIR) api.kill('SIGHUP');
      const s0 = performance.now();
      await pool(to - from, 8, (k) => postScore(from + k));
      const ms = performance.now() - s0;
      scoresMs += ms;
      await settled();
      if (process.env.BENCH_CPU_WINDOW_DIR) api.kill('SIGHUP');
      const cpu = cpuUs(api.pid) - cpu0;
      const sql = (await statementsSoFar()) - sql0;
      if (textFile) {
        // Each statement text of the phase with its count per score, most sent first.
        const text1 = textCounts();
        const perScore = Object.entries(text1)
          .map(([text, n]) => [text, (n - (text0[text] ?? 0)) / (to - from)])
          .filter(([, n]) => n > 0)
          .sort((a, b) => b[1] - a[1]);
        writeFileSync(`${textFile}.${phases.length + 1}.json`, JSON.stringify(perScore, null, 1));
      }
      phases.push({ name, n: to - from, ms, sqlPer: sql / (to - from), cpuUsPer: cpu / (to - from) });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  // Background work (the outbox's events of the completions) settles before the count is read.
  await new Promise((r) => setTimeout(r, 2000));
  const scoreSql = ((await statementsSoFar()) - scoreSql0) / SCORES;
  const [{ completions, events }] = (
    await client.query(
      `SELECT (SELECT count(*)::int FROM lesson_completions WHERE lesson_id = $1 AND user_id = ANY($2::uuid[])) AS completions,
              (SELECT count(*)::int FROM domain_events WHERE name = 'lesson.completed' AND payload->>'lesson_id' = $1::text
                 AND (payload->>'user_id')::uuid = ANY($2::uuid[])) AS events`,
      [lessonId, learners],
    )
  ).rows;
  const v0 = performance.now();
  await pool(SCORES, 8, async () => {
    const res = await fetch(`${base}/version`);
    await res.arrayBuffer();
  });
  const versionMs = performance.now() - v0;

  // NRPS: every page of 1 000.
  const n0 = performance.now();
  if (AGS_ONLY) memberships = null;
  let next = memberships ? `${base}${new URL(memberships).pathname}?limit=1000` : null;
  let members = 0;
  let pages = 0;
  while (next) {
    const res = await fetch(next, { headers: { authorization: `Bearer ${accessToken}` } });
    if (res.status !== 200) throw new Error(`memberships answered ${res.status}`);
    members += (await res.json()).members.length;
    pages++;
    const link = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '');
    next = link ? `${base}${new URL(link[1]).pathname}${new URL(link[1]).search}` : null;
  }
  const nrpsMs = performance.now() - n0;
  const b0 = performance.now();
  await client.query(
    `SELECT u.id, u.email, u.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.organization_id = $1 ORDER BY m.user_id`,
    [orgId],
  );
  const sqlMs = performance.now() - b0;

  console.log(`\nNode ${process.version}; LTI platform on one instance (production mode, Redis, PostgreSQL)`);
  console.log(
    `launch (302 + authorize with signed id_token), ${LAUNCHES} at ${CONCURRENCY} concurrent: p50 ${p(launchTimes, 0.5).toFixed(1)} ms, ` +
      `p99 ${p(launchTimes, 0.99).toFixed(1)} ms (target <= 20 ms); baseline GET /auth/me p99 ${p(meTimes, 0.99).toFixed(1)} ms; ` +
      `${launchSql.toFixed(1)} SQL statements per launch`,
  );
  console.log(
    `AGS: ${SCORES} scores from 8 connections in ${(scoresMs / 1000).toFixed(2)} s = ${Math.round((SCORES / scoresMs) * 1000)} scores/s ` +
      `(target >= 1 000); completions ${completions} and lesson.completed events ${events} for ${learners.length} learners ` +
      `(once each: ${completions === learners.length && events === learners.length}); baseline /version ` +
      `${Math.round((SCORES / versionMs) * 1000)} req/s; ${scoreSql.toFixed(1)} SQL statements per score (background work included)`,
  );
  for (const ph of phases) {
    console.log(
      `  AGS phase ${ph.name}: ${ph.n} scores in ${(ph.ms / 1000).toFixed(2)} s = ${Math.round((ph.n / ph.ms) * 1000)} scores/s; ` +
        `${ph.sqlPer.toFixed(2)} SQL statements and ${Math.round(ph.cpuUsPer)} us of service CPU per score (background work included)`,
    );
  }
  console.log(
    `NRPS: ${members} members in ${pages} pages of 1 000 in ${nrpsMs.toFixed(0)} ms (target <= 1 000 ms); baseline one SQL ` +
      `query ${sqlMs.toFixed(0)} ms`,
  );
} finally {
  await client.end();
  await stop(api);
  await mail.close();
  await db.drop();
  rmSync(statementsFile, { force: true });
}
