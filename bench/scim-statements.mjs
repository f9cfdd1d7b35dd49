// node bench/scim-statements.mjs (after npm run build): the statements per synced user and per look-up of
// bench/scim.mjs at a reduced size, counted inside the service (bench/sql-stats.mjs preloaded). BENCH_USERS (300)
// users synced the Entra way (filter GET then POST, 4 connections), then BENCH_LOOKUPS (300) `userName eq` look-ups
// among BENCH_MEMBERS (20 000) members. The set-up and the sync loop are bench/scim.mjs's (`startScimBench` in
// bench/lib.mjs). Prints each statement text per unit with its mean time (for ranking only: the machine's load moves
// it). The sync's window ends once the service is idle again, so its background work per user (event deliveries,
// jobs, activity batches) is counted. OUT (/tmp/scim-statements) gets each window's counts; CPU_PROF=1 also a CPU
// profile per window (`node bench/cpu-top.mjs OUT/stats.json.<n>.cpuprofile`: 1 is the sync, 3 the look-ups);
// KEEP_DB=1 keeps the database (for EXPLAIN). Counts do not depend on the machine; never read the times here as a figure.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startScimBench } from './lib.mjs';

const USERS = Number(process.env.BENCH_USERS ?? 300);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 20_000);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 300);
const OUT = process.env.OUT ?? '/tmp/scim-statements';
mkdirSync(OUT, { recursive: true });

const bench = await startScimBench({
  label: 'scimprof',
  extraEnv: {
    NODE_OPTIONS: `--import=${process.cwd()}/bench/sql-stats.mjs`,
    SQLSTATS_FILE: `${OUT}/stats.json`,
    SQLSTATS_CPU_PROFILE: process.env.CPU_PROF ?? '',
  },
});
const dump = async (name) => {
  await sleep(500);
  rmSync(`${OUT}/stats.json`, { force: true });
  bench.service.kill('SIGUSR2');
  for (let i = 0; i < 200 && !existsSync(`${OUT}/stats.json`); i++) await sleep(100);
  await sleep(100);
  const s = JSON.parse(readFileSync(`${OUT}/stats.json`, 'utf8'));
  writeFileSync(`${OUT}/${name}.json`, JSON.stringify(s, null, 1));
  return s;
};
try {
  await bench.seedMembers(MEMBERS);
  await bench.sync('GET', '/scim/v2/Users?count=1');
  // A profiler keeps the process busy: only the pending work tells then.
  const idle = { quietCpu: !process.env.CPU_PROF };
  await bench.waitIdle(idle);
  await dump('setup');
  await bench.syncUsers(USERS, 4);
  await bench.waitIdle(idle); // the batched activity lines and event deliveries of the window
  const s1 = await dump('sync');
  for (let i = 0; i < 20; i++)
    await bench.big('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${bench.lookupName(i)}"`)}`);
  await sleep(1000);
  await dump('warm');
  for (let i = 0; i < LOOKUPS; i++) {
    const name = bench.lookupName(i);
    const res = await bench.big('GET', `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}`);
    if (res.totalResults !== 1) throw new Error('expected one');
  }
  await sleep(1500);
  const s2 = await dump('lookup');
  const show = (label, s, n) => {
    console.log(`\n== ${label}: ${s.total} statements, ${(s.total / n).toFixed(2)} per unit`);
    for (const r of s.rows.slice(0, 40))
      console.log(
        `${(r.n / n).toFixed(2).padStart(6)}  ${(r.ms / r.n).toFixed(2).padStart(7)}ms  ${r.sql.slice(0, 230)}`,
      );
  };
  show(`sync of ${USERS} users`, s1, USERS);
  show(`${LOOKUPS} look-ups`, s2, LOOKUPS);
  const cnt = await bench.client.query(`SELECT count(*)::int n FROM memberships WHERE organization_id = $1`, [
    bench.syncOrg,
  ]);
  console.log('\nsync org members', cnt.rows[0].n);
  if (process.env.KEEP_DB) console.log('orgs', bench.bigOrg, 'run', bench.run);
} finally {
  await bench.close();
}
