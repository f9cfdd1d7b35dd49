// npm run bench:flashcards: the flashcard study queue and reviews of the built service, against GET /version of the
// same service in the same run.
//  1. Due queue: one learner with 50 000 cards (10 personal decks of 5 000, seeded with SQL): 40 000 reviewed with
//     due dates spread over 90 days around today (about a third due now), 10 000 new. autocannon on
//     GET /flashcards/due?limit=20 with the learner's session, alternated with GET /version, rounds x duration.
//  2. Reviews: REVIEWERS learners (each with REVIEWER_CARDS cards of their own), POST .../reviews with a random
//     grade on the next learner's next card (requests go round the learners: reviews are limited to 120 per minute
//     per person, extensions-v3 6.5), on CONNECTIONS connections, alternated with GET /version. A review is a
//     transaction: the learner's lock, the state row, the review log row and the domain event with its deliveries.
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, median, scratchDatabase, startMailSink, startService, stop } from './lib.mjs';

const CARDS = Number(process.env.BENCH_CARDS ?? 50_000);
// Connections of the review phase (the name is the one earlier runs used).
const LEARNERS = Number(process.env.BENCH_LEARNERS ?? 16);
// 256 x 120 reviews a minute is far above what two cores write: no request of the bench meets the limit.
const REVIEWERS = Number(process.env.BENCH_REVIEWERS ?? 256);
const REVIEWER_CARDS = Number(process.env.BENCH_REVIEWER_CARDS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

// The autocannon child: `--load <json>` prints autocannon's JSON result.
if (process.argv[2] === '--load') {
  const { default: autocannon } = await import('autocannon');
  const { url, kind, path, cookie, learners, connections, duration } = JSON.parse(
    readFileSync(process.argv[3], 'utf8'),
  );
  let next = 0;
  const requests =
    kind === 'review'
      ? [
          {
            method: 'POST',
            // Requests go round the learners, each reviewing its cards in turn (120 reviews a minute per person).
            setupRequest: (req) => {
              const l = learners[next++ % learners.length];
              l.next = (l.next ?? 0) + 1;
              const card = l.cards[l.next % l.cards.length];
              return {
                ...req,
                path: `${l.base}/flashcards/cards/${card}/reviews`,
                headers: { cookie: l.cookie, 'content-type': 'application/json' },
                body: JSON.stringify({ grade: [1, 3, 4, 5][Math.floor(Math.random() * 4)] }),
              };
            },
          },
        ]
      : [{ method: 'GET', path, headers: cookie ? { cookie } : {} }];
  const result = await autocannon({ url, connections, duration, requests });
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

function load(options) {
  // The options (16 learners x 5 000 card ids) are too large for a command line: a temporary file.
  const dir = mkdtempSync(join(os.tmpdir(), 'lp-bench-flashcards-'));
  const file = join(dir, 'options.json');
  writeFileSync(file, JSON.stringify(options));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['bench/flashcards.mjs', '--load', file],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        rmSync(dir, { recursive: true, force: true });
        if (err) return reject(err);
        const r = JSON.parse(stdout);
        resolve({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          total: r.requests.total,
          non2xx: r.non2xx ?? 0,
          errors: r.errors,
        });
      },
    );
  });
}

async function alternate(targets) {
  const runs = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let i = 0; i < ROUNDS; i++) for (const t of targets) runs[t.name].push(await load(t.options));
  return targets.map((t) => ({
    name: t.name,
    rps: Math.round(median(runs[t.name].map((r) => r.rps))),
    p50: median(runs[t.name].map((r) => r.p50)),
    p99: median(runs[t.name].map((r) => r.p99)),
    non2xx: runs[t.name].reduce((a, r) => a + r.non2xx, 0),
    errors: runs[t.name].reduce((a, r) => a + r.errors, 0),
    rounds: runs[t.name].map((r) => Math.round(r.rps)),
  }));
}

/** Signs in by email code from its own client address (the service trusts X-Forwarded-For here). */
async function signIn(base, mail, email, ip) {
  const codePromise = mail.nextCode(email);
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': ip };
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
  const user = await res.json();
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { cookie, id: user.id };
}

/** Personal decks of `size` cards for a person, `total` cards in all; returns the card ids in deck order. */
async function seedCards(client, orgId, userId, total, size = 5000) {
  const ids = [];
  for (let d = 0; d * size < total; d++) {
    const n = Math.min(size, total - d * size);
    const [deck] = (
      await client.query(
        `INSERT INTO flashcard_decks (kind, organization_id, user_id, title, created_at)
         VALUES ('personal', $1, $2, $3, now() - ($4 || ' minutes')::interval) RETURNING id`,
        [orgId, userId, `Deck ${d + 1}`, 1000 - d],
      )
    ).rows;
    const rows = await client.query(
      `INSERT INTO flashcards (deck_id, position, front_md, back_md, front_html, back_html)
       SELECT $1, g, 'Front ' || g, 'Back ' || g, '<p>Front ' || g || '</p>', '<p>Back ' || g || '</p>'
       FROM generate_series(1, $2::int) g RETURNING id`,
      [deck.id, n],
    );
    await client.query(`UPDATE flashcard_decks SET cards_count = $2 WHERE id = $1`, [deck.id, n]);
    ids.push(...rows.rows.map((r) => r.id));
  }
  return ids;
}

const db = await scratchDatabase('flashcards');
const mail = await startMailSink();
const port = await freePort();
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:flashcards:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: { LOG_LEVEL: 'warn', TRUST_PROXY: 'true' },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const base = `http://127.0.0.1:${port}`;
  const owner = await signIn(base, mail, `owner.${Date.now()}@example.test`, '10.9.0.1');
  const call = async (cookie, method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { cookie, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  await call(owner.cookie, 'PUT', '/api/v1/me/onboarding', {
    name: 'Bench Owner',
    locale: 'es',
    adult_confirmed: true,
  });
  const orgId = (await call(owner.cookie, 'POST', '/api/v1/organizations', { name: 'Bench Org' })).organization.id;
  const orgBase = `/api/v1/organizations/${orgId}`;

  // The learner of the queue: 50 000 cards, 40 000 with a state (due dates over 90 days around today), 10 000 new.
  const seedStart = performance.now();
  const cards = await seedCards(client, orgId, owner.id, CARDS);
  const reviewed = cards.slice(0, Math.floor(CARDS * 0.8));
  await client.query(
    `INSERT INTO flashcard_states (organization_id, user_id, card_id, deck_id, scheduler, reviews, lapses, ever_correct,
       first_reviewed_at, first_review_on, last_reviewed_at, due_on, due_at, sm2)
     SELECT $1, $2, c.id, f.deck_id, 'sm2', 3, 0, true, now() - interval '100 days', current_date - 100, now() - interval '10 days',
       (current_date + ((c.n % 90) - 30)::int), (current_date + ((c.n % 90) - 30)::int)::timestamptz,
       '{"repetitions": 3, "ease_hundredths": 250, "interval_days": 15}'::jsonb
     FROM unnest($3::uuid[]) WITH ORDINALITY AS c(id, n) JOIN flashcards f ON f.id = c.id`,
    [orgId, owner.id, reviewed],
  );
  // The reviewers: REVIEWERS learners, REVIEWER_CARDS cards each.
  const learners = [];
  for (let i = 0; i < REVIEWERS; i++) {
    const ip = `10.9.${1 + Math.floor(i / 250)}.${(i % 250) + 1}`;
    const l = await signIn(base, mail, `learner${i}.${Date.now()}@example.test`, ip);
    await client.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'student')`, [
      orgId,
      l.id,
    ]);
    learners.push({ cookie: l.cookie, base: orgBase, cards: await seedCards(client, orgId, l.id, REVIEWER_CARDS) });
  }
  await client.query('VACUUM ANALYZE flashcards');
  await client.query('VACUUM ANALYZE flashcard_states');
  await client.query('VACUUM ANALYZE flashcard_decks');
  const seedMs = performance.now() - seedStart;

  const duePath = `${orgBase}/flashcards/due?limit=20`;
  const due = await call(owner.cookie, 'GET', duePath);
  if (due.items.length !== 20) throw new Error(`the queue answered ${due.items.length} cards`);
  const explain = (
    await client.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT deck_id, count(*)::int AS reviewed, count(*) FILTER (WHERE due_at <= now())::int AS due
       FROM flashcard_states WHERE organization_id = $1 AND user_id = $2
         AND deck_id = ANY(ARRAY(SELECT id FROM flashcard_decks WHERE user_id = $2)) GROUP BY deck_id`,
      [orgId, owner.id],
    )
  ).rows[0]['QUERY PLAN'][0];

  const version = {
    name: 'GET /version',
    options: { url: base, kind: 'get', path: '/version', connections: CONNECTIONS, duration: DURATION },
  };
  const queue = await alternate([
    {
      name: `GET due (${CARDS} cards)`,
      options: {
        url: base,
        kind: 'get',
        path: duePath,
        cookie: owner.cookie,
        connections: CONNECTIONS,
        duration: DURATION,
      },
    },
    version,
  ]);
  const reviewsBefore = Number((await client.query(`SELECT count(*) FROM flashcard_reviews`)).rows[0].count);
  const reviews = await alternate([
    {
      name: `POST review (${REVIEWERS} learners)`,
      options: { url: base, kind: 'review', learners, connections: LEARNERS, duration: DURATION },
    },
    { ...version, options: { ...version.options, connections: LEARNERS } },
  ]);
  const reviewsAfter = Number((await client.query(`SELECT count(*) FROM flashcard_reviews`)).rows[0].count);
  const events = Number(
    (await client.query(`SELECT count(*) FROM domain_events WHERE name = 'flashcard.reviewed'`)).rows[0].count,
  );

  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores, PostgreSQL local; seeded ${CARDS} + ${REVIEWERS} x ${REVIEWER_CARDS} cards in ${(seedMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `queue: due_total ${due.due_total}, new_total ${due.new_total}; per-deck counts SQL (EXPLAIN ANALYZE) ${explain['Execution Time'].toFixed(2)} ms`,
  );
  console.log(`${''.padEnd(40)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}  rounds (req/s)`);
  for (const r of [...queue, ...reviews]) {
    console.log(
      `${r.name.padEnd(40)}${String(r.rps).padStart(9)}${String(r.p50).padStart(9)}${String(r.p99).padStart(9)}  ${r.rounds.join(' / ')}${r.non2xx || r.errors ? `  (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}`,
    );
  }
  console.log(`reviews written: ${reviewsAfter - reviewsBefore}; flashcard.reviewed events: ${events}`);
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/flashcards-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify(
      {
        node: process.version,
        cards: CARDS,
        review_connections: LEARNERS,
        reviewers: REVIEWERS,
        reviewer_cards: REVIEWER_CARDS,
        due: { total: due.due_total, new: due.new_total },
        queue,
        reviews,
        events,
      },
      null,
      2,
    ),
  );
  console.log(`\nSaved ${file}`);
} finally {
  await client.end();
  await stop(service);
  await mail.close();
  await db.drop();
}
