// npm run bench: builds, starts the service, a bare node:http server and a minimal NestJS app on Express (both
// answering the exact bytes of the service's /version, each its own process on the same Node binary), loads them
// alternately with autocannon (same connections, same duration), prints req/s, p99 and CPU per request for each and
// the ratios to the bare server and to the minimal Nest app (what the framework alone costs here).
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { loadavg, measure } from './cpu.mjs';
import {
  autocannon,
  freePort,
  scratchDatabase,
  startBare,
  startMailSink,
  startMinimalNest,
  startService,
  stop,
} from './lib.mjs';
import { scenarios } from './scenarios.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

const loadAtStart = loadavg();

const db = await scratchDatabase('http');
const servicePort = await freePort();
const barePort = await freePort();
const nestPort = await freePort();
const mail = await startMailSink();
const service = await startService({
  port: servicePort,
  databaseUrl: db.url,
  redisPrefix: `lpbench:${Date.now()}`,
  smtpUrl: mail.url,
  // BENCH_SERVICE_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=..." profiles the service (written when it stops).
  extraEnv: process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {},
});
// BENCH_BEFORE_DIR=<a copy of the tree at another commit, built> also measures that build's /version in the same
// run (its own process, same database, own Redis prefix): a before/after under the same load.
const beforeDir = process.env.BENCH_BEFORE_DIR;
const beforePort = beforeDir ? await freePort() : undefined;
let before;
let bare;
let nest;
try {
  if (beforeDir) {
    before = await startService({
      port: beforePort,
      databaseUrl: db.url,
      redisPrefix: `lpbench:${Date.now()}:before`,
      smtpUrl: mail.url,
      entry: `${beforeDir}/dist/src/apps/api.js`,
      extraEnv: process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {},
    });
  }
  // The baselines answer what the service's /version answers, byte for byte.
  const versionBody = await (await fetch(`http://127.0.0.1:${servicePort}/version`)).text();
  bare = await startBare(barePort, versionBody);
  nest = await startMinimalNest(nestPort, versionBody);
  const base = `http://127.0.0.1:${servicePort}`;
  const nestBody = await (await fetch(`http://127.0.0.1:${nestPort}/version`)).text();
  if (nestBody !== versionBody) throw new Error(`the minimal Nest app answers ${nestBody}, not ${versionBody}`);
  const targets = [
    { name: 'bare node:http', url: `http://127.0.0.1:${barePort}/`, pid: bare.pid },
    { name: 'minimal NestJS (Express) /version', url: `http://127.0.0.1:${nestPort}/version`, pid: nest.pid },
  ];
  if (before) {
    targets.push({
      name: `before: GET /version (${beforeDir})`,
      url: `http://127.0.0.1:${beforePort}/version`,
      pid: before.pid,
    });
  }
  // BENCH_ONLY=auth-me,version runs only the named scenarios (the bare server and the minimal Nest app always run).
  const only = process.env.BENCH_ONLY?.split(',');
  for (const s of scenarios) {
    if (only && !only.includes(s.name)) continue;
    for (const t of await s.prepare(base, { mail })) targets.push({ ...t, pid: service.pid });
  }
  // Warm up (JIT, pools) before anything is measured.
  for (const t of targets) await autocannon(t.url, { connections, duration: 2, headers: t.headers });
  const results = await measure(targets, { rounds, connections, duration });
  const bareRps = results[0].rps;
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores, ${connections} connections, ${duration} s x ${rounds} rounds (median)`,
  );
  console.log(
    'target'.padEnd(40),
    'req/s'.padStart(8),
    'p99 ms'.padStart(8),
    'vs bare'.padStart(8),
    'errors'.padStart(7),
    'CPU us/req'.padStart(11),
    'vs bare (CPU)'.padStart(14),
    'vs Nest (CPU)'.padStart(14),
  );
  const bareCpu = results[0].cpuUsPerRequest;
  const nestCpu = results[1].cpuUsPerRequest;
  for (const r of results) {
    console.log(
      r.name.padEnd(40),
      String(r.rps).padStart(8),
      String(r.p99).padStart(8),
      (r.rps / bareRps).toFixed(2).padStart(8),
      String(r.errors).padStart(7),
      r.cpuUsPerRequest.toFixed(1).padStart(11),
      (bareCpu / r.cpuUsPerRequest).toFixed(2).padStart(14),
      (nestCpu / r.cpuUsPerRequest).toFixed(2).padStart(14),
    );
  }
  console.log(
    `load average at start ${loadAtStart}, at end ${loadavg()}. "CPU us/req": the CPU time (user + system, all threads) of the\n` +
      'answering process per answered request, read from /proc: it depends far less on what else the machine runs than req/s does.',
  );
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/http-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify({ node: process.version, loadAtStart, connections, duration, rounds, results }, null, 2),
  );
  console.log(`\nSaved ${file}`);
} finally {
  await stop(service);
  await stop(bare);
  await stop(nest);
  await stop(before);
  await mail.close();
  await db.drop();
}
