// The tenancy guard's cost (docs/DECISIONS.md, "Tenancy in data access"): the same statements through a pg pool
// whose client class is the guarded one and through the plain pg client, alternated in the same run, and the
// guard's own check per statement in process. Run: npm run build && node bench/tenancy-guard.mjs
import { createRequire } from 'node:module';
import pg from 'pg';
import { median, scratchDatabase } from './lib.mjs';

const require = createRequire(import.meta.url);
const { guardedClient, TenancyGuard } = require('../dist/src/core/database/tenancy-guard.js');
const { orgEq, orgParam, tenancyExempt } = require('../dist/src/core/database/tenancy.js');

const QUERIES = Number(process.env.BENCH_QUERIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ORG = '0b6f4a52-4c1e-4f0a-9d59-2f4f7c1f3a10';

const statements = [
  [`SELECT id, name FROM cohorts WHERE ${orgEq(1)} AND id = $2`, [ORG, ORG]],
  [`SELECT count(*)::int AS n FROM cohort_members m WHERE ${orgEq(1, 'm')} AND m.user_id = $2`, [ORG, ORG]],
  [`${tenancyExempt('by-key-after-scoped-read')} UPDATE cohorts SET name = name WHERE id = $1`, [ORG]],
];
const params = [];
const where = orgParam(params, ORG, 'c');
statements.push([`SELECT c.id FROM cohorts c WHERE ${where} ORDER BY c.id LIMIT 10`, params]);

const db = await scratchDatabase('tenancy');
try {
  const setup = new pg.Client({ connectionString: db.url });
  await setup.connect();
  await setup.query(`CREATE TABLE cohorts (id uuid PRIMARY KEY, organization_id uuid NOT NULL, name text NOT NULL);
    CREATE TABLE cohort_members (organization_id uuid NOT NULL, user_id uuid NOT NULL);
    INSERT INTO cohorts VALUES ('${ORG}', '${ORG}', 'one')`);
  await setup.end();

  const guard = new TenancyGuard(new Set(['cohorts', 'cohort_members']), 'refuse');
  const pools = {
    plain: new pg.Pool({ connectionString: db.url, max: 4 }),
    guarded: new pg.Pool({ connectionString: db.url, max: 4, Client: guardedClient(guard) }),
  };
  const run = async (pool) => {
    const started = process.hrtime.bigint();
    const lanes = Array.from({ length: 8 }, async (_, lane) => {
      for (let i = lane; i < QUERIES; i += 8) {
        const [text, values] = statements[i % statements.length];
        await pool.query(text, values);
      }
    });
    await Promise.all(lanes);
    return QUERIES / (Number(process.hrtime.bigint() - started) / 1e9);
  };
  await run(pools.plain);
  await run(pools.guarded);
  const rates = { plain: [], guarded: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 ? ['guarded', 'plain'] : ['plain', 'guarded']) rates[name].push(await run(pools[name]));
  }
  await Promise.all(Object.values(pools).map((p) => p.end()));

  const n = 1_000_000;
  let t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) guard.check(...statements[i % statements.length]);
  const checkNs = Number(process.hrtime.bigint() - t) / n;

  const plain = median(rates.plain);
  const guarded = median(rates.guarded);
  console.log(`tenancy guard: ${QUERIES} statements x ${ROUNDS} rounds, pool of 4, 8 concurrent callers`);
  console.log(`  baseline (plain pg client): ${plain.toFixed(0)} statements/s (median)`);
  console.log(
    `  guarded client:             ${guarded.toFixed(0)} statements/s (median), ratio ${(guarded / plain).toFixed(3)}`,
  );
  console.log(`  guard check in process: ${checkNs.toFixed(0)} ns per statement (verdict cached, parameters checked)`);
} finally {
  await db.drop();
}
