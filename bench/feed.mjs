// npm run bench:feed: reading the feed of an organization that holds 1 000 000 feed items (extensions-v2 11), against
// GET /version of the same service in the same run.
//  Seed (SQL into a scratch database the service migrated): 2 000 members (70 % public profiles, 5 % minors), 1 000 000
//  feed items over a year (90 % activity items of the six kinds, 10 % posts, 1 % of those pending or hidden),
//  reactions on the newest 20 000 items, comments on the newest 5 000 posts. The counters the trigger keeps are built
//  in one statement after a bulk load with the trigger off (what the trigger would have written), then checked.
//  Load: autocannon (its own process), 32 connections, 5 s x 3 alternated rounds (median), on /version, the first
//  page of the feed (limit 50), a page 1 000 items deep, and the activity-only first page, each signed in as a student.
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { alternate, freePort, scratchDatabase, signInCookie, startMailSink, startService, stop } from './lib.mjs';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 1_000_000);
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

const db = await scratchDatabase('feed');
const mail = await startMailSink();
const port = await freePort();
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:feed:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: { LOG_LEVEL: 'warn' },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const base = `http://127.0.0.1:${port}`;
  const cookie = await signInCookie(base, mail, `owner.${Date.now()}@example.test`);
  const call = async (method, path, body, as = cookie) => {
    const res = await fetch(base + path, {
      method,
      headers: { cookie: as, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Owner', locale: 'es', adult_confirmed: true });
  const orgId = (await call('POST', '/api/v1/organizations', { name: 'Bench Feed Org' })).organization.id;
  const studentEmail = `student.${Date.now()}@example.test`;
  const student = await signInCookie(base, mail, studentEmail);
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Student', locale: 'es', adult_confirmed: true }, student);
  const [{ id: studentId }] = (await client.query(`SELECT id FROM users WHERE email = $1`, [studentEmail])).rows;
  await client.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'student')`, [
    orgId,
    studentId,
  ]);

  // ---- Seed ----
  const seedStart = performance.now();
  await client.query(
    `INSERT INTO users (email, username, name, public_profile, age_bracket)
     SELECT 'm' || g || '@bench.test', 'member-' || g, 'Member ' || g, g % 10 < 7,
       CASE WHEN g % 20 = 0 THEN 'under_18' ELSE 'adult' END
     FROM generate_series(1, $1) g`,
    [PEOPLE],
  );
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role)
     SELECT $1, id, 'student' FROM users WHERE email LIKE '%@bench.test'`,
    [orgId],
  );
  const people = (
    await client.query(`SELECT array_agg(id ORDER BY email) AS ids FROM users WHERE email LIKE '%@bench.test'`)
  ).rows[0].ids;
  await client.query(`ALTER TABLE feed_items DISABLE TRIGGER feed_items_count`);
  const BATCH = 100_000;
  for (let start = 0; start < ITEMS; start += BATCH) {
    await client.query(
      `INSERT INTO feed_items (organization_id, kind, user_id, created_at, activity, body_md, body_html, status,
         pending_reason, published_at)
       SELECT $1, k.kind, ($2::uuid[])[(1 + (g::bigint * 7919) % cardinality($2::uuid[]))::int], t.at,
         CASE WHEN k.kind = 'post' THEN NULL
              WHEN k.kind = 'level_reached' THEN jsonb_build_object('level', 1 + g % 40)
              WHEN k.kind = 'streak_milestone' THEN jsonb_build_object('streak_days', 7)
              ELSE jsonb_build_object('course_id', gen_random_uuid(), 'course_title', 'Course ' || g % 500) END,
         CASE WHEN k.kind = 'post' THEN 'Post **' || g || '** with a [link](https://example.com/' || g || ')' END,
         CASE WHEN k.kind = 'post' THEN '<p>Post <strong>' || g || '</strong> with a <a href="https://example.com/' || g
           || '" rel="nofollow noopener ugc">link</a></p>' END,
         CASE WHEN k.kind = 'post' AND g % 200 = 0 THEN 'pending' WHEN k.kind = 'post' AND g % 200 = 1 THEN 'hidden'
              ELSE 'published' END,
         CASE WHEN k.kind = 'post' AND g % 200 = 0 THEN 'pre_moderation' END,
         t.at
       FROM generate_series($3::int, $4::int) g
       CROSS JOIN LATERAL (SELECT now() - ((($5::int - g)::float / $5::int) * interval '365 days') AS at) t
       CROSS JOIN LATERAL (SELECT CASE WHEN g % 10 = 0 THEN 'post'
         ELSE (ARRAY['course_completed', 'badge_earned', 'certificate_issued', 'program_completed', 'level_reached',
           'streak_milestone'])[1 + g % 6] END AS kind) k`,
      [orgId, people, start + 1, Math.min(start + BATCH, ITEMS), ITEMS],
    );
  }
  // What the trigger would have written, in one statement; then the trigger is on again for the service.
  await client.query(
    `INSERT INTO feed_counts (organization_id, user_id, is_post, status, n)
     SELECT organization_id, user_id, kind = 'post', status, count(*) FROM feed_items GROUP BY 1, 2, 3, 4`,
  );
  await client.query(`ALTER TABLE feed_items ENABLE TRIGGER feed_items_count`);
  await client.query(
    `INSERT INTO feed_reactions (item_id, user_id, kind, organization_id, created_at)
     SELECT f.id, ($2::uuid[])[1 + (r * 31) % cardinality($2::uuid[])], (ARRAY['like', 'celebrate', 'insightful', 'support'])[1 + r % 4], $1, now()
     FROM (SELECT id FROM feed_items WHERE organization_id = $1 ORDER BY created_at DESC LIMIT 20000) f
     CROSS JOIN generate_series(1, 5) r
     ON CONFLICT DO NOTHING`,
    [orgId, people],
  );
  await client.query(
    `INSERT INTO feed_comments (organization_id, post_id, user_id, body_md, body_html, status, created_at, published_at)
     SELECT $1, f.id, ($2::uuid[])[1 + (c * 17) % cardinality($2::uuid[])], 'Comment', '<p>Comment</p>', 'published',
       now(), now()
     FROM (SELECT id FROM feed_items WHERE organization_id = $1 AND kind = 'post' ORDER BY created_at DESC LIMIT 5000) f
     CROSS JOIN generate_series(1, 3) c`,
    [orgId, people],
  );
  for (const table of ['users', 'memberships', 'feed_items', 'feed_counts', 'feed_reactions', 'feed_comments']) {
    await client.query(`VACUUM ANALYZE ${table}`);
  }
  const seedMs = performance.now() - seedStart;

  // ---- Correctness: the API's total is the visibility rule counted over the table itself ----
  const feedPath = `/api/v1/organizations/${orgId}/feed`;
  const first = await call('GET', `${feedPath}?limit=50`, undefined, student);
  const [{ n: expected }] = (
    await client.query(
      `SELECT count(*)::int AS n FROM feed_items f JOIN users u ON u.id = f.user_id
       WHERE f.organization_id = $1 AND ((f.kind = 'post' AND (f.status = 'published' OR (f.user_id = $2 AND f.status IN ('pending', 'hidden'))))
         OR (f.kind <> 'post' AND u.public_profile AND u.age_bracket IS DISTINCT FROM 'under_18'))`,
      [orgId, studentId],
    )
  ).rows;
  if (first.total !== expected || first.items.length !== 50) {
    throw new Error(`feed total ${first.total} (expected ${expected}), ${first.items.length} items`);
  }
  const [{ n: stored }] = (await client.query(`SELECT count(*)::int AS n FROM feed_items`)).rows;
  const plan = (
    await client.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT f.id FROM feed_items f JOIN users u ON u.id = f.user_id
       WHERE f.organization_id = $1 AND ((f.kind = 'post' AND (f.status = 'published' OR (f.user_id = $2 AND f.status IN ('pending', 'hidden'))))
         OR (f.kind <> 'post' AND u.public_profile AND u.age_bracket IS DISTINCT FROM 'under_18'))
       ORDER BY f.created_at DESC, f.id DESC LIMIT 50 OFFSET 0`,
      [orgId, studentId],
    )
  ).rows[0]['QUERY PLAN'][0];

  // ---- Load ----
  const targets = [
    { name: 'GET /version (full pipeline)', url: `${base}/version` },
    { name: 'GET feed, first page (50)', url: `${base}${feedPath}?limit=50`, headers: { cookie: student } },
    {
      name: 'GET feed, page at offset 1000',
      url: `${base}${feedPath}?limit=50&offset=1000`,
      headers: { cookie: student },
    },
    {
      name: 'GET feed?kind=activity (50)',
      url: `${base}${feedPath}?kind=activity&limit=50`,
      headers: { cookie: student },
    },
  ];
  for (const t of targets) await fetch(t.url, { headers: t.headers }).then((r) => r.arrayBuffer());
  const results = await alternate(targets, { rounds: ROUNDS, connections: CONNECTIONS, duration: DURATION });

  const load = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores, load average ${load}; ${stored} feed items, ${PEOPLE} members; ` +
      `seeded in ${(seedMs / 1000).toFixed(1)} s; first page SQL ${plan['Execution Time'].toFixed(2)} ms`,
  );
  console.log(`${CONNECTIONS} connections, ${DURATION} s x ${ROUNDS} rounds (median)`);
  console.log(
    `${'target'.padEnd(40)}${'req/s'.padStart(8)}${'p99 ms'.padStart(8)}${'vs /version'.padStart(13)}${'errors'.padStart(8)}`,
  );
  const baseline = results[0];
  for (const r of results) {
    console.log(
      `${r.name.padEnd(40)}${String(r.rps).padStart(8)}${String(r.p99).padStart(8)}${(r.rps / baseline.rps).toFixed(2).padStart(13)}${String(r.errors).padStart(8)}`,
    );
  }
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/feed-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify(
      { node: process.version, items: stored, people: PEOPLE, seedMs, total: first.total, results, plan },
      null,
      2,
    ),
  );
  console.log(`\nSaved ${file}`);
} finally {
  await client.end();
  await stop(service);
  await mail.close();
  if (process.env.BENCH_KEEP) console.log(`kept ${db.url}`);
  else await db.drop();
}
