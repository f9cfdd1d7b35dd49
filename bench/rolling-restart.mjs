// npm run bench:rolling-restart: a rolling restart of one of two API instances under steady load (5.2).
// Two built API processes (PROCESS_JOBS=false) and one worker on one scratch database and Redis prefix. A load
// balancer of this script sends an authenticated read (GET /api/v1/auth/me) at a fixed rate (open loop: a late
// answer does not slow the arrivals), round robin over the instances, and retries a request on the other
// instance only when the connection is refused, as a balancer does. Two phases of the same length and rate:
//   baseline  no restart;
//   restart   A gets SIGTERM a third of the way in (it drains for SHUTDOWN_DRAIN_MS and stops), is started again
//             on the same port and rejoins.
// Prints requests sent, failed (any answer but 200, any error but a refused connection) and p50/p99 per phase.
// The figure: 0 failed requests in the restart phase at 200 req/s for 60 s.
// Options: --rate 200 --duration 60 --drain 5000 (a small proof run: --rate 40 --duration 8 --drain 1000).
// Needs PostgreSQL and Redis on their local ports (or BENCH_ADMIN_DATABASE_URL / BENCH_REDIS_URL).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  freePort,
  scratchDatabase,
  signInCookie,
  startMailSink,
  startService,
  startWorker,
  stop,
  waitForHttp,
} from './lib.mjs';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const RATE = option('rate', 200);
const DURATION_S = option('duration', 60);
const DRAIN_MS = option('drain', 5000);

const percentile = (xs, p) => {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Sends RATE requests per second for DURATION_S; `during(elapsedMs)` is called every tick (the restart). */
async function phase(targets, cookie, during = () => {}) {
  const stats = { sent: 0, ok: 0, failed: 0, retried: 0, latencies: [], failures: new Map() };
  const fail = (why) => {
    stats.failed++;
    stats.failures.set(why, (stats.failures.get(why) ?? 0) + 1);
  };
  const one = async (n) => {
    const started = performance.now();
    for (let attempt = 0; attempt < targets.length; attempt++) {
      const base = targets[(n + attempt) % targets.length];
      try {
        const res = await fetch(`${base}/api/v1/auth/me`, { headers: { cookie } });
        await res.arrayBuffer();
        if (res.status === 200) stats.ok++;
        else fail(`HTTP ${res.status}`);
        stats.latencies.push(performance.now() - started);
        return;
      } catch (err) {
        const code = err?.cause?.code;
        if (code === 'ECONNREFUSED') {
          stats.retried++;
          continue;
        }
        fail(code ?? String(err));
        return;
      }
    }
    fail('every instance refused');
  };
  const inFlight = new Set();
  const start = performance.now();
  const total = RATE * DURATION_S;
  while (stats.sent < total) {
    const elapsed = performance.now() - start;
    during(elapsed);
    const due = Math.min(total, Math.floor((elapsed / 1000) * RATE));
    while (stats.sent < due) {
      const p = one(stats.sent++);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  return stats;
}

function report(label, s) {
  const failures = [...s.failures].map(([k, v]) => `${k} x${v}`).join(', ');
  console.log(
    `${label.padEnd(9)} sent ${s.sent}  ok ${s.ok}  failed ${s.failed}  retried on refusal ${s.retried}  ` +
      `p50 ${percentile(s.latencies, 50).toFixed(1)} ms  p99 ${percentile(s.latencies, 99).toFixed(1)} ms` +
      (failures ? `  (${failures})` : ''),
  );
}

const db = await scratchDatabase('rolling');
const mail = await startMailSink();
const prefix = `lpbench:rolling:${Date.now().toString(36)}`;
const [portA, portB] = [await freePort(), await freePort()];
// One public address for both instances, as behind a balancer (tokens name it as their issuer).
const common = {
  databaseUrl: db.url,
  redisPrefix: prefix,
  smtpUrl: mail.url,
  extraEnv: {
    PROCESS_JOBS: 'false',
    BASE_URL: 'http://localhost:8000',
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    LOG_LEVEL: 'warn',
  },
};
const children = [];
try {
  let a = await startService({ port: portA, ...common });
  children.push(a);
  const worker = startWorker({
    databaseUrl: db.url,
    redisPrefix: prefix,
    smtpUrl: mail.url,
    baseUrl: 'http://localhost:8000',
  });
  children.push(worker);
  const b = await startService({ port: portB, ...common, extraEnv: { ...common.extraEnv, MIGRATE_ON_START: 'false' } });
  children.push(b);
  const targets = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
  const cookie = await signInCookie(targets[0], mail, `rolling.${Date.now()}@bench.test`);

  console.log(`Rolling restart: ${RATE} req/s for ${DURATION_S} s per phase, SHUTDOWN_DRAIN_MS=${DRAIN_MS}`);
  report('baseline', await phase(targets, cookie));

  let restarted = null;
  let exitedAt = null;
  const stats = await phase(targets, cookie, (elapsed) => {
    if (restarted || elapsed < (DURATION_S * 1000) / 3) return;
    const signalAt = performance.now();
    restarted = (async () => {
      const exited = new Promise((resolve) => a.once('exit', resolve));
      a.kill('SIGTERM');
      await exited;
      exitedAt = performance.now() - signalAt;
      a = await startService({ port: portA, ...common, extraEnv: { ...common.extraEnv, MIGRATE_ON_START: 'false' } });
      children.push(a);
      await waitForHttp(`${targets[0]}/ready`);
    })();
  });
  await restarted;
  report('restart', stats);
  console.log(
    `A stopped ${exitedAt === null ? '?' : (exitedAt / 1000).toFixed(1)} s after SIGTERM and rejoined; ` +
      `failed requests during the rolling restart: ${stats.failed} (target 0)`,
  );
  process.exitCode = stats.failed === 0 ? 0 : 1;
} finally {
  // lib's stop() waits for an exit; the first A has already gone (by a signal: exitCode stays null).
  for (const child of children) if (child.exitCode === null && child.signalCode === null) await stop(child);
  await mail.close();
  await db.drop();
}
