// npm run bench:tutor: the AI tutor with the local (extractive) provider over a course of 200 lessons. Builds, starts
// the service (production settings, a scratch database it migrates at start), authors the course of
// bench/tutor-course.mjs through the editor API (so its passages are cut and indexed as in production), signs
// learners in, and asks the 20 questions written for the course, sequentially, reading each answer as a stream:
// time to the first server-sent event and to the end of the stream (p50/p95/p99). Baselines in the same run: an
// authenticated JSON read of the same area (`GET .../tutor/conversations?limit=1`), a write of it (`POST
// .../tutor/conversations`: the same checks and one committed insert) and the retrieval statement itself through
// pg (the service's own class from dist/). Retrieval precision: for each question, the share of the
// passages found (top 6, and the 3 the local tutor quotes) that come from the lessons of its topic.
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { FullTextPassageRetriever } from '../dist/src/modules/learning/courses/passage-retrieval.js';
import { freePort, scratchDatabase, startMailSink, startService, stop } from './lib.mjs';
import { lessons, PARTS, TOPICS } from './tutor-course.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
/** The message route allows 20 per minute per account: enough learners that none comes near it. */
const LEARNERS = Number(process.env.BENCH_LEARNERS ?? 15);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), max: s.at(-1) };
}
const fmt = (x) => x.toFixed(2).padStart(8);

let ipCounter = 0;
async function signIn(base, mail, email) {
  const ip = `10.77.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': ip };
  const codePromise = mail.nextCode(email);
  const req = await fetch(`${base}/api/v1/auth/otp/request`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email }),
  });
  if (req.status !== 200) throw new Error(`otp/request answered ${req.status}`);
  const code = await codePromise;
  const res = await fetch(`${base}/api/v1/auth/otp/verify`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, code }),
  });
  if (res.status !== 200) throw new Error(`otp/verify answered ${res.status}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const user = await res.json();
  return { ip, cookie, user };
}

async function call(base, who, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', cookie: who.cookie, 'x-forwarded-for': who.ip },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** One question, read as a stream: time to the first event, to the end, and the events. */
async function ask(base, who, path, content) {
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: who.cookie, 'x-forwarded-for': who.ip },
    body: JSON.stringify({ content }),
  });
  if (res.status !== 200) throw new Error(`message answered ${res.status}: ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let first = null;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first === null) first = performance.now();
    text += decoder.decode(value, { stream: true });
  }
  const end = performance.now();
  const events = text
    .split('\n\n')
    .filter((b) => b.includes('data:'))
    .map((b) => ({
      event: /^event: (.*)$/m.exec(b)[1],
      data: JSON.parse(/^data: (.*)$/m.exec(b)[1]),
    }));
  return { first: first - t0, total: end - t0, events };
}

const db = await scratchDatabase('tutor');
const port = await freePort();
const mail = await startMailSink();
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:tutor:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: { PLATFORM_ADMIN_EMAILS: 'editor@bench.test', TRUST_PROXY: 'true', LOG_LEVEL: 'warn' },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const base = `http://127.0.0.1:${port}`;

  // The course, through the editor API (its passages are written in the same transactions).
  const editor = await signIn(base, mail, 'editor@bench.test');
  const course = await call(base, editor, 'POST', '/api/v1/editor/courses', {
    title: 'Python from scratch',
    language: 'en',
    level: 'beginner',
  });
  const made = [];
  const started = performance.now();
  for (const lesson of lessons()) {
    const created = await call(base, editor, 'POST', `/api/v1/editor/courses/${course.id}/lessons`, {
      title: lesson.title,
      content_md: lesson.content_md,
    });
    made.push({ ...created, topic: lesson.topic });
  }
  const authoring = performance.now() - started;
  await call(base, editor, 'POST', `/api/v1/editor/courses/${course.id}/publish`);
  const topicOf = new Map(made.map((l) => [l.id, l.topic]));
  await client.query('VACUUM ANALYZE lesson_chunks');
  const [{ chunks }] = (
    await client.query(`SELECT count(*)::int AS chunks FROM lesson_chunks WHERE course_id = $1`, [course.id])
  ).rows;

  // Learners: each with an organization of their own, enrolled, with one conversation.
  const learners = [];
  for (let i = 0; i < LEARNERS; i++) {
    const who = await signIn(base, mail, `learner${i}@bench.test`);
    await call(base, who, 'PUT', '/api/v1/me/onboarding', {
      name: `Learner ${i}`,
      locale: 'en',
      adult_confirmed: true,
    });
    const org = (await call(base, who, 'POST', '/api/v1/organizations', { name: `Bench ${i}` })).organization.id;
    await call(base, who, 'POST', `/api/v1/organizations/${org}/courses/${course.id}/enroll`);
    const conversation = (
      await call(base, who, 'POST', `/api/v1/organizations/${org}/tutor/conversations`, { course_id: course.id })
    ).id;
    learners.push({ ...who, org, path: `/api/v1/organizations/${org}/tutor/conversations/${conversation}/messages` });
  }

  // The retrieval statement itself, through pg, with the service's own class.
  const retriever = new FullTextPassageRetriever({
    query: async (sql, params) => (await client.query(sql, params)).rows,
  });

  const ttfe = [];
  const totals = [];
  const floor = [];
  const write = [];
  const sql = [];
  const precision = TOPICS.map(() => ({ top6: 0, cited: 0, first: 0 }));
  let n = 0;
  const errors = [];
  for (let round = -1; round < ROUNDS; round++) {
    for (const [t, topic] of TOPICS.entries()) {
      const who = learners[n++ % learners.length];
      const answer = await ask(base, who, who.path, topic.question);
      const done = answer.events.at(-1);
      if (done?.event !== 'done') errors.push(done);
      const t0 = performance.now();
      await call(base, who, 'GET', `/api/v1/organizations/${who.org}/tutor/conversations?limit=1`);
      const t1 = performance.now();
      await call(base, who, 'POST', `/api/v1/organizations/${who.org}/tutor/conversations`, { course_id: course.id });
      const tw = performance.now();
      const found = await retriever.retrieve({
        courseId: course.id,
        lessonId: null,
        question: topic.question,
        limit: 6,
      });
      const t2 = performance.now();
      const writeMs = tw - t1;
      const sqlMs = t2 - tw;
      if (round < 0) {
        // Warm-up round; its answers give the precision (the answers are deterministic).
        const cited = answer.events.filter((e) => e.event === 'citation').map((e) => topicOf.get(e.data.lesson_id));
        precision[t] = {
          found: found.length,
          top6: found.length ? found.filter((p) => topicOf.get(p.lesson_id) === t).length / found.length : 0,
          cited: cited.length ? cited.filter((x) => x === t).length / cited.length : 0,
          first: found.length && topicOf.get(found[0].lesson_id) === t ? 1 : 0,
        };
        continue;
      }
      ttfe.push(answer.first);
      totals.push(answer.total);
      floor.push(t1 - t0);
      write.push(writeMs);
      sql.push(sqlMs);
    }
  }

  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const lines = [
    `Node ${process.version}, ${os.cpus().length} cores, PostgreSQL local; course of ${made.length} lessons (${chunks} passages), local provider`,
    `authoring through the editor API: ${made.length} lessons in ${(authoring / 1000).toFixed(1)} s (${(authoring / made.length).toFixed(1)} ms per lesson, passages included)`,
    `${ttfe.length} questions (${TOPICS.length} questions x ${ROUNDS} rounds, sequential, ${LEARNERS} learners), errors: ${errors.length}`,
    '                                               p50 ms  p95 ms  p99 ms  max ms',
    `tutor: first server-sent event              ${fmt(stats(ttfe).p50)}${fmt(stats(ttfe).p95)}${fmt(stats(ttfe).p99)}${fmt(stats(ttfe).max)}`,
    `tutor: whole answer (stream end)            ${fmt(stats(totals).p50)}${fmt(stats(totals).p95)}${fmt(stats(totals).p99)}${fmt(stats(totals).max)}`,
    `baseline: GET .../tutor/conversations       ${fmt(stats(floor).p50)}${fmt(stats(floor).p95)}${fmt(stats(floor).p99)}${fmt(stats(floor).max)}`,
    `baseline: POST .../tutor/conversations      ${fmt(stats(write).p50)}${fmt(stats(write).p95)}${fmt(stats(write).p99)}${fmt(stats(write).max)}`,
    `baseline: retrieval SQL through pg          ${fmt(stats(sql).p50)}${fmt(stats(sql).p95)}${fmt(stats(sql).p99)}${fmt(stats(sql).max)}`,
    `retrieval precision over ${TOPICS.length} questions: top passage from the topic ${(mean(precision.map((p) => p.first)) * 100).toFixed(0)} %, ` +
      `precision@6 ${(mean(precision.map((p) => p.top6)) * 100).toFixed(1)} %, quoted passages (top 3) ${(mean(precision.map((p) => p.cited)) * 100).toFixed(1)} %`,
    'per question (found, precision@6, quoted, top passage right):',
    ...TOPICS.map(
      (topic, t) =>
        `  ${topic.question.padEnd(80)} ${String(precision[t].found).padStart(2)} ${(precision[t].top6 * 100).toFixed(0).padStart(4)} % ${(precision[t].cited * 100).toFixed(0).padStart(4)} % ${precision[t].first ? 'yes' : 'no'}`,
    ),
  ];
  console.log(`\n${lines.join('\n')}`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    `bench/results/tutor-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
    JSON.stringify({ ttfe, totals, floor, write, sql, precision, parts: PARTS, errors }, null, 2),
  );
} finally {
  await client.end();
  await stop(service);
  await mail.close();
  await db.drop();
}
