// npm run bench:search: full-text search of the catalog through the public API, over 5 000 published public
// courses (half Spanish, half English, 5 lessons each) seeded with SQL into a scratch database. Measures the
// latency of GET /api/v1/organizations/{org}/search over a mix of 20 queries, sequentially and under load
// (autocannon cycling through the mix), and, as the baseline in the same run, the same SQL executed directly
// through pg. Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import {
  freePort,
  jsonCaller,
  median,
  scratchDatabase,
  signInCookie,
  startMailSink,
  startService,
  stop,
} from './lib.mjs';
// The baseline runs exactly the service's full-text query (built code: run after `npm run build`).
import { textQuery } from '../dist/src/modules/learning/courses/catalog-sql.js';
const TQ = textQuery('$2');

const COURSES = Number(process.env.BENCH_COURSES ?? 5000);
const LESSONS = Number(process.env.BENCH_LESSONS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

const QUERIES = [
  'programación',
  'programacion python',
  'estadística',
  'historia del arte',
  'marketing digital',
  'cocina mediterránea',
  'fotografía',
  'finanzas personales',
  'biología celular',
  '"bases de datos"',
  'canciones',
  'aprender guitarra',
  'machine learning',
  'data analysis',
  'running',
  'photography basics',
  'web development -php',
  'personal finance or budgeting',
  'nutrition',
  'project management',
];

// The autocannon child: cycles through the query mix with the session cookie, prints autocannon's JSON result.
if (process.argv[2] === '--load') {
  const { default: autocannon } = await import('autocannon');
  const { url, paths, cookie, connections, duration } = JSON.parse(process.argv[3]);
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: paths.map((path) => ({ method: 'GET', path, headers: { cookie } })),
  });
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

// ---- Realistic catalog text -----------------------------------------------------------------------------
const ES = {
  subjects: [
    'Programación en Python',
    'Estadística aplicada',
    'Historia del arte',
    'Marketing digital',
    'Cocina mediterránea',
    'Fotografía digital',
    'Finanzas personales',
    'Biología celular',
    'Bases de datos relacionales',
    'Guitarra para principiantes',
    'Diseño gráfico',
    'Gestión de proyectos',
    'Inteligencia artificial',
    'Redacción académica',
    'Música y canciones populares',
    'Nutrición y salud',
    'Desarrollo web',
    'Química orgánica',
    'Economía del comportamiento',
    'Liderazgo de equipos',
  ],
  prefixes: ['Introducción a', 'Fundamentos de', 'Curso práctico de', 'Taller de', 'Claves de', 'Especialización en'],
  sentences: [
    'Aprenderás los conceptos esenciales con ejemplos reales y ejercicios guiados.',
    'Cada lección termina con un cuestionario para comprobar lo aprendido.',
    'El curso está pensado para estudiantes sin experiencia previa.',
    'Trabajarás con casos prácticos tomados de empresas e instituciones.',
    'Al final podrás **aplicar** lo aprendido en tus propios proyectos.',
    'Incluye lecturas recomendadas y [recursos adicionales](https://example.org/recursos).',
    'Veremos errores frecuentes y cómo evitarlos desde el primer día.',
    'Los profesores comparten su experiencia docente y profesional.',
  ],
  lessons: ['Primeros pasos', 'Conceptos básicos', 'Herramientas', 'Práctica guiada', 'Proyecto final', 'Repaso'],
};
const EN = {
  subjects: [
    'Python programming',
    'Applied statistics',
    'Art history',
    'Digital marketing',
    'Mediterranean cooking',
    'Photography basics',
    'Personal finance and budgeting',
    'Cell biology',
    'Relational databases',
    'Guitar for beginners',
    'Graphic design',
    'Project management',
    'Machine learning',
    'Academic writing',
    'Songwriting',
    'Nutrition and health',
    'Web development',
    'Organic chemistry',
    'Data analysis',
    'Running and endurance training',
  ],
  prefixes: ['Introduction to', 'Foundations of', 'Hands-on', 'Essentials of', 'Advanced', 'A practical guide to'],
  sentences: [
    'You will learn the core concepts through real examples and guided exercises.',
    'Every lesson ends with a short quiz to check your understanding.',
    'Designed for learners with no previous experience.',
    'You will work on case studies taken from companies and public institutions.',
    'By the end you will **apply** what you learned to your own projects.',
    'Includes further reading and [extra resources](https://example.org/resources).',
    'We cover common mistakes and how to avoid them from day one.',
    'The instructors share their teaching and industry experience.',
  ],
  lessons: ['Getting started', 'Core concepts', 'Tools of the trade', 'Guided practice', 'Final project', 'Review'],
};
const pick = (list, i) => list[i % list.length];
const paragraph = (lang, i, n) => Array.from({ length: n }, (_, k) => pick(lang.sentences, i * 7 + k * 3)).join(' ');

function catalog() {
  const courses = [];
  const lessons = [];
  for (let i = 0; i < COURSES; i++) {
    const es = i % 2 === 0;
    const lang = es ? ES : EN;
    const subject = pick(lang.subjects, Math.floor(i / 2) * 7 + i);
    const title = `${pick(lang.prefixes, i * 3)} ${subject.charAt(0).toLowerCase()}${subject.slice(1)} ${Math.floor(i / 40) + 1}`;
    courses.push({
      slug: `bench-course-${i}`,
      title,
      summary: `${subject}: ${paragraph(lang, i, 2)}`,
      description: `## ${subject}\n\n${paragraph(lang, i, 5)}\n\n${paragraph(lang, i + 3, 4)}`,
      language: es ? 'es' : 'en',
      level: pick(['beginner', 'intermediate', 'advanced'], i),
      tags: [subject.split(' ')[0].toLowerCase(), es ? 'curso' : 'course'],
      minutes: 60 + (i % 10) * 30,
    });
    for (let p = 1; p <= LESSONS; p++) {
      lessons.push({
        course: i,
        position: p,
        title: `${pick(lang.lessons, p - 1)}: ${subject}`,
        content: `# ${pick(lang.lessons, p - 1)}\n\n${paragraph(lang, i + p, 6)}\n\n${paragraph(lang, i * p + 1, 6)}`,
        language: es ? 'es' : 'en',
      });
    }
  }
  return { courses, lessons };
}

/** The SQL of the service's search repository (courses and lessons, visible to the organization, one page). */
const SEARCH_SQL = `
  WITH page AS (
    SELECT * FROM (
      SELECT 'course'::text AS type, c.id, c.id AS course_id,
        ts_rank_cd(c.search_vector, ${TQ}, 32) AS score
      FROM courses c
      WHERE c.search_vector @@ ${TQ}
        AND (c.status = 'published' AND (c.visibility = 'public' OR EXISTS (
          SELECT 1 FROM course_organizations co WHERE co.course_id = c.id AND co.organization_id = $1)))
      UNION ALL
      SELECT 'lesson'::text, l.id, l.course_id,
        ts_rank_cd(l.search_vector, ${TQ}, 32)
      FROM lessons l JOIN courses c ON c.id = l.course_id
      WHERE l.search_vector @@ ${TQ}
        AND (c.status = 'published' AND (c.visibility = 'public' OR EXISTS (
          SELECT 1 FROM course_organizations co WHERE co.course_id = c.id AND co.organization_id = $1)))
    ) h ORDER BY h.score DESC, h.type, h.id LIMIT 20 OFFSET 0
  )
  SELECT p.type, p.id, p.course_id, p.score,
    CASE p.type WHEN 'course' THEN c.title ELSE l.title END AS title,
    CASE p.type
      WHEN 'course' THEN ts_headline(CASE c.language WHEN 'es' THEN 'es_unaccent'::regconfig ELSE 'en_unaccent'::regconfig END,
        c.summary || E'\\n\\n' || c.description_md, ${TQ}, $3)
      ELSE ts_headline(CASE l.language WHEN 'es' THEN 'es_unaccent'::regconfig ELSE 'en_unaccent'::regconfig END,
        l.content_md, ${TQ}, $3)
    END AS headline
  FROM page p LEFT JOIN lessons l ON p.type = 'lesson' AND l.id = p.id JOIN courses c ON c.id = p.course_id
  ORDER BY p.score DESC, p.type, p.id`;
const HEADLINE =
  'StartSel=\uE000, StopSel=\uE001, MaxWords=28, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "';

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
function summary(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  const total = ms.reduce((a, b) => a + b, 0);
  return {
    n: ms.length,
    p50: pct(sorted, 50),
    p95: pct(sorted, 95),
    p99: pct(sorted, 99),
    rps: (ms.length / total) * 1000,
  };
}
const fmt = (x) => x.toFixed(2).padStart(8);

function load(url, paths, cookie) {
  const args = [
    'bench/search.mjs',
    '--load',
    JSON.stringify({ url, paths, cookie, connections: CONNECTIONS, duration: DURATION }),
  ];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout)),
    );
  });
}

const db = await scratchDatabase('search');
const mail = await startMailSink();
const port = await freePort();
const service = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:search:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: { LOG_LEVEL: 'warn' },
});
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  // Seed (the service has migrated the database at start).
  const seedStart = performance.now();
  const { courses, lessons } = catalog();
  const ids = [];
  for (let i = 0; i < courses.length; i += 500) {
    const batch = courses.slice(i, i + 500);
    const res = await client.query(
      `INSERT INTO courses (slug, title, summary, description_md, language, level, tags, visibility, status, estimated_minutes, published_at)
       SELECT s, t, su, d, l, lv, string_to_array(tg, ','), 'public', 'published', m, now() - (n || ' minutes')::interval
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::int[])
         AS x(s, t, su, d, l, lv, tg, m, n)
       RETURNING id`,
      [
        batch.map((c) => c.slug),
        batch.map((c) => c.title),
        batch.map((c) => c.summary),
        batch.map((c) => c.description),
        batch.map((c) => c.language),
        batch.map((c) => c.level),
        batch.map((c) => c.tags.join(',')),
        batch.map((c) => c.minutes),
        batch.map((_, k) => i + k),
      ],
    );
    ids.push(...res.rows.map((r) => r.id));
  }
  for (let i = 0; i < lessons.length; i += 2000) {
    const batch = lessons.slice(i, i + 2000);
    await client.query(
      `INSERT INTO lessons (course_id, position, title, content_md, language)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[])`,
      [
        batch.map((l) => ids[l.course]),
        batch.map((l) => l.position),
        batch.map((l) => l.title),
        batch.map((l) => l.content),
        batch.map((l) => l.language),
      ],
    );
  }
  // Steady state: statistics gathered and the GIN pending lists merged (as autovacuum would).
  await client.query('VACUUM ANALYZE courses');
  await client.query('VACUUM ANALYZE lessons');
  const seedMs = performance.now() - seedStart;

  const base = `http://127.0.0.1:${port}`;
  const cookie = await signInCookie(base, mail, `member.${Date.now()}@example.test`);
  const call = jsonCaller(base, { cookie });
  await call('PUT', '/api/v1/me/onboarding', { name: 'Bench Member', locale: 'es', adult_confirmed: true });
  const orgId = (await call('POST', '/api/v1/organizations', { name: 'Bench Org' })).organization.id;
  const paths = QUERIES.map((q) => `/api/v1/organizations/${orgId}/search?q=${encodeURIComponent(q)}&limit=20`);

  // Every query finds something, and the plan uses the GIN indexes.
  const totals = [];
  for (const path of paths) totals.push((await call('GET', path)).total);
  const plan = (await client.query(`EXPLAIN (FORMAT JSON) ${SEARCH_SQL}`, [orgId, QUERIES[0], HEADLINE])).rows[0][
    'QUERY PLAN'
  ];
  const indexes = new Set();
  const walk = (node) => {
    if (node['Index Name']) indexes.add(node['Index Name']);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan[0].Plan);

  // Warm-up, then sequential rounds through the mix: API and direct SQL alternated per query.
  for (const path of paths) await fetch(base + path, { headers: { cookie } }).then((r) => r.arrayBuffer());
  for (const q of QUERIES) await client.query(SEARCH_SQL, [orgId, q, HEADLINE]);
  const api = [];
  const sql = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < QUERIES.length; i++) {
      let t0 = performance.now();
      const res = await fetch(base + paths[i], { headers: { cookie } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`search answered ${res.status}`);
      api.push(performance.now() - t0);
      t0 = performance.now();
      await client.query(SEARCH_SQL, [orgId, QUERIES[i], HEADLINE]);
      sql.push(performance.now() - t0);
    }
  }
  const seq = summary(api);
  const direct = summary(sql);
  const loaded = await load(base, paths, cookie);

  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores, PostgreSQL local; seed ${COURSES} courses + ${lessons.length} lessons in ${(seedMs / 1000).toFixed(1)} s`,
  );
  console.log(`plan indexes: ${[...indexes].sort().join(', ')}`);
  console.log(
    `matches per query (total): min ${Math.min(...totals)}, median ${median(totals)}, max ${Math.max(...totals)}`,
  );
  console.log(
    `${''.padEnd(44)}${'p50 ms'.padStart(8)}${'p95 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'req/s'.padStart(8)}`,
  );
  console.log(
    `${`API sequential (${seq.n} requests, 20 queries)`.padEnd(44)}${fmt(seq.p50)}${fmt(seq.p95)}${fmt(seq.p99)}${fmt(seq.rps)}`,
  );
  console.log(
    `${`API autocannon (${CONNECTIONS} conn, ${DURATION} s)`.padEnd(44)}${fmt(loaded.latency.p50)}${fmt(loaded.latency.p97_5)}${fmt(loaded.latency.p99)}${fmt(loaded.requests.average)}`,
  );
  console.log(
    `${`baseline: same SQL through pg (${direct.n})`.padEnd(44)}${fmt(direct.p50)}${fmt(direct.p95)}${fmt(direct.p99)}${fmt(direct.rps)}`,
  );
  console.log(
    `autocannon: ${loaded.requests.total} requests, ${loaded.non2xx ?? 0} non-2xx, ${loaded.errors} errors (p95 column shows autocannon's p97.5)`,
  );
  console.log(`API p95 / SQL p95: ${(seq.p95 / direct.p95).toFixed(2)}`);
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/search-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify(
      {
        node: process.version,
        courses: COURSES,
        lessons: lessons.length,
        queries: QUERIES,
        indexes: [...indexes],
        sequential: seq,
        sql: direct,
        autocannon: {
          latency: loaded.latency,
          requests: loaded.requests,
          errors: loaded.errors,
          non2xx: loaded.non2xx,
        },
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
