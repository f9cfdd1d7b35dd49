// npm run bench:budgets: GET /version of the built service with request budgets on (every request counted against
// its client address's budget and reconciled with Redis twice a second; quotas no load reaches, so nothing is
// refused) against the same service with budgets off (all three settings 0), in one run: two instances on one
// scratch database and Redis, loaded alternately with autocannon (same connections, same duration): each round a
// pair, off and on back to back in an order that alternates by round. Figure: the median of the pairs' ratios.
// Target (extensions-v3 8): budgets on >= 0.95 of budgets off.
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { loadavg, measure } from './cpu.mjs';
import { autocannon, freePort, median, scratchDatabase, startService, stop } from './lib.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
const duration = Number(process.env.BENCH_DURATION ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TARGET = 0.95;
const loadAtStart = loadavg();
// BENCH_SERVICE_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=..." profiles both instances (written when they stop).
const nodeOptions = process.env.BENCH_SERVICE_NODE_OPTIONS
  ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS }
  : {};

const db = await scratchDatabase('budgets');
const stamp = Date.now();
const services = [];
try {
  const onPort = await freePort();
  const on = await startService({
    port: onPort,
    databaseUrl: db.url,
    redisPrefix: `lpbench:${stamp}:on`,
    extraEnv: { PROCESS_JOBS: 'false', LOG_LEVEL: 'warn', ...nodeOptions },
  });
  services.push(on);
  const offPort = await freePort();
  const off = await startService({
    port: offPort,
    databaseUrl: db.url,
    redisPrefix: `lpbench:${stamp}:off`,
    extraEnv: {
      PROCESS_JOBS: 'false',
      LOG_LEVEL: 'warn',
      API_BUDGET_TOKEN_PER_MINUTE: '0',
      API_BUDGET_SESSION_PER_MINUTE: '0',
      API_BUDGET_ANONYMOUS_PER_MINUTE: '0',
      ...nodeOptions,
    },
  });
  services.push(off);
  // Both answer as they should before anything is measured: the fields with budgets on, none with them off.
  const [withFields, withoutFields] = await Promise.all([
    fetch(`http://127.0.0.1:${onPort}/version`),
    fetch(`http://127.0.0.1:${offPort}/version`),
  ]);
  if (!withFields.headers.get('ratelimit') || withoutFields.headers.get('ratelimit')) {
    throw new Error('budgets on must send the RateLimit field and budgets off must not');
  }
  // Warm both up (JIT, connection pools) before the measured rounds.
  for (const port of [offPort, onPort])
    await autocannon(`http://127.0.0.1:${port}/version`, { connections, duration: 2 });
  const results = await measure(
    [
      { name: 'GET /version, budgets off', url: `http://127.0.0.1:${offPort}/version`, pid: off.pid },
      { name: 'GET /version, budgets on', url: `http://127.0.0.1:${onPort}/version`, pid: on.pid },
    ],
    { rounds, connections, duration, alternateOrder: true },
  );
  const [offResult, onResult] = results;
  // The figure: the median of each round's pair (on / off measured back to back, their order alternating by round).
  // On these machines req/s moves by 10-30 % between rounds (a VM: neighbours, frequency), far more than the budget's
  // cost, and a ratio of medians taken from different rounds carries that drift; a pair shares its round's state.
  const pairs = onResult.rounds.map((rps, i) => rps / offResult.rounds[i]);
  const cpuPairs = onResult.cpuRounds.map((cpu, i) => offResult.cpuRounds[i] / cpu);
  const ratio = median(pairs);
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores, ${connections} connections, ${duration} s x ${rounds} rounds (median)`,
  );
  console.log(
    'target'.padEnd(32),
    'req/s'.padStart(8),
    'p99 ms'.padStart(8),
    'errors'.padStart(7),
    'CPU us/req'.padStart(11),
  );
  for (const r of results) {
    console.log(
      r.name.padEnd(32),
      String(r.rps).padStart(8),
      String(r.p99).padStart(8),
      String(r.errors).padStart(7),
      r.cpuUsPerRequest.toFixed(1).padStart(11),
    );
  }
  const cpuRatio = median(cpuPairs);
  console.log(
    `\nbudgets on / off, median of the ${rounds} paired rounds: ${ratio.toFixed(3)} (target >= ${TARGET}: ` +
      `${ratio >= TARGET ? 'met' : 'not met'}); per round ${pairs.map((r) => r.toFixed(3)).join(' ')}; ` +
      `ratio of the medians ${(onResult.rps / offResult.rps).toFixed(3)}`,
  );
  console.log(
    `CPU per request, off / on, median of the pairs: ${cpuRatio.toFixed(3)} (per round ` +
      `${cpuPairs.map((r) => r.toFixed(3)).join(' ')}; what the ratio would be with the service CPU-bound); ` +
      `load average at start ${loadAtStart}, at end ${loadavg()}`,
  );
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/budgets-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify(
      { node: process.version, loadAtStart, connections, duration, rounds, ratio, pairs, cpuRatio, cpuPairs, results },
      null,
      2,
    ),
  );
  console.log(`Saved ${file}`);
} finally {
  for (const s of services) await stop(s);
  await db.drop();
}
