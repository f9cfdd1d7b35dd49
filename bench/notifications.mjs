// npm run bench:notifications: fan-out of one event (`course.published` of a public course) to the inboxes of
// 100 000 members of an organization, through the real pipeline: the event's delivery to the subscriber, the
// fan-out jobs of 500 people (each one INSERT with the person's language and in-app preference, then the push and
// email follow-up for the people whose preferences turn them on), run by the service's own job workers.
// Baseline in the same run: the same 100 000 rows written by one bulk INSERT ... SELECT.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort, scratchDatabase, startService, stop } from './lib.mjs';

const MEMBERS = Number(process.env.BENCH_FANOUT_MEMBERS ?? 100_000);
const db = await scratchDatabase('notifications');
const port = await freePort();
const api = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:notif:${Date.now()}`,
  extraEnv: { LOG_LEVEL: 'warn' },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const [{ id: orgId }] = (
    await client.query(
      `INSERT INTO organizations (name, slug) VALUES ('Bench Org', 'bench-${Date.now()}') RETURNING id`,
    )
  ).rows;
  await client.query(
    `INSERT INTO users (email, username, locale, created_at, updated_at)
     SELECT 'member' || i || '@bench.test', 'member' || i, CASE WHEN i % 3 = 0 THEN 'en' ELSE 'es' END, now(), now()
     FROM generate_series(1, $1) AS i`,
    [MEMBERS],
  );
  await client.query(
    `INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM users WHERE email LIKE '%@bench.test'`,
    [orgId],
  );
  // 1 % changed their preferences (in-app off for new courses): the rows' in_app follows them.
  await client.query(
    `INSERT INTO notification_preferences (user_id, categories, updated_at)
     SELECT id, '{"new_course": {"in_app": false}}', now() FROM users WHERE email LIKE '%@bench.test' AND random() < 0.01`,
  );
  const [{ id: courseId }] = (
    await client.query(
      `INSERT INTO courses (slug, title, language, level, status, visibility)
       VALUES ('bench-course', 'Curso de prueba', 'es', 'beginner', 'published', 'public') RETURNING id`,
    )
  ).rows;
  await client.query('VACUUM ANALYZE');

  // The event as DomainEvents.publish writes it (the event and its delivery to the notifications subscriber).
  const eventId = randomUUID();
  const started = performance.now();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO domain_events (id, name, version, organization_id, actor_id, occurred_at, payload)
     VALUES ($1, 'course.published', 1, NULL, NULL, now(), $2)`,
    [eventId, JSON.stringify({ course_id: courseId, first_publication: true })],
  );
  await client.query(
    `INSERT INTO domain_event_deliveries (event_id, subscriber, run_after) VALUES ($1, 'notifications.new_course', now())`,
    [eventId],
  );
  await client.query('COMMIT');
  let rows = 0;
  for (;;) {
    rows = (await client.query(`SELECT count(*)::int AS n FROM notifications WHERE source_key = $1`, [eventId])).rows[0]
      .n;
    if (rows >= MEMBERS) break;
    if (performance.now() - started > 600_000) throw new Error(`fan-out stalled at ${rows} rows`);
    await sleep(100);
  }
  const fanOutMs = performance.now() - started;
  const [{ in_app }] = (
    await client.query(
      `SELECT count(*) FILTER (WHERE in_app)::int AS in_app FROM notifications WHERE source_key = $1`,
      [eventId],
    )
  ).rows;

  // Baseline: the same rows (same columns, languages and preference join) in one bulk statement.
  const b0 = performance.now();
  const baseline = await client.query(
    `INSERT INTO notifications (user_id, organization_id, category, title, body, url, data, source_key, in_app, created_at)
     SELECT u.id, NULL, 'new_course',
            CASE u.locale WHEN 'en' THEN 'New course available' ELSE 'Nuevo curso disponible' END,
            CASE u.locale WHEN 'en' THEN 'You can now start it.' ELSE 'Ya puedes empezarlo.' END,
            'http://localhost:3000/courses/' || $2, jsonb_build_object('course_id', $2::text), 'baseline', 
            COALESCE((p.categories -> 'new_course' ->> 'in_app')::boolean, true), now()
     FROM memberships m JOIN users u ON u.id = m.user_id LEFT JOIN notification_preferences p ON p.user_id = u.id
     WHERE m.organization_id = $1`,
    [orgId, courseId],
  );
  const baselineMs = performance.now() - b0;

  const rate = (n, ms) => Math.round((n / ms) * 1000);
  console.log(
    `\nNode ${process.version}; one course.published to ${MEMBERS} members (jobs of 500, the service's own workers)`,
  );
  console.log(
    `pipeline: ${rows} rows (${in_app} in-app) in ${(fanOutMs / 1000).toFixed(2)} s = ${rate(rows, fanOutMs)} rows/s`,
  );
  console.log(
    `baseline, one bulk INSERT ... SELECT of the same rows: ${baseline.rowCount} rows in ${(baselineMs / 1000).toFixed(2)} s = ${rate(baseline.rowCount, baselineMs)} rows/s`,
  );
  console.log(`ratio: ${(rate(rows, fanOutMs) / rate(baseline.rowCount, baselineMs)).toFixed(2)} (target >= 0.25)`);
} finally {
  await client.end();
  await stop(api);
  await db.drop();
}
