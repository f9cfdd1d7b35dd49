// Where /version's CPU goes, per request, against the framework alone: profiles (bench/cpu-window.mjs: the V8
// profiler runs during the loaded window only) of the built service's GET /version and of the minimal NestJS app
// (bench/minimal-nest-server.mjs) answering the same bytes, each loaded alone with autocannon after a warm-up; prints
// the CPU per request of each (from /proc) and each profile's self and inclusive time per function in µs per request
// (bench/cpuprofile-summary.mjs --per).
//   node bench/pipeline-profile.mjs   (after npm run build)
// BENCH_DURATION (s, default 8), BENCH_CONNECTIONS (32), BENCH_TOP (40 functions), BENCH_BUDGETS=off (the service
// with the three budgets at 0), BENCH_PROFILE_DIR (default bench/results/profiles-<time>).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuUs, loadavg } from './cpu.mjs';
import { autocannon, freePort, scratchDatabase, startMinimalNest, startService, stop } from './lib.mjs';

const duration = Number(process.env.BENCH_DURATION ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const top = process.env.BENCH_TOP ?? '40';
const dir = resolve(
  process.env.BENCH_PROFILE_DIR ?? `bench/results/profiles-${new Date().toISOString().replace(/[:.]/g, '-')}`,
);
const preload = { NODE_OPTIONS: `--import ${new URL('./cpu-window.mjs', import.meta.url).href}` };
const budgetsOff =
  process.env.BENCH_BUDGETS === 'off'
    ? { API_BUDGET_TOKEN_PER_MINUTE: '0', API_BUDGET_SESSION_PER_MINUTE: '0', API_BUDGET_ANONYMOUS_PER_MINUTE: '0' }
    : {};

/** Reads a file the process writes on a signal (waits for it to appear). */
async function written(file) {
  for (let i = 0; i < 500; i++) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      await sleep(20);
    }
  }
  throw new Error(`nothing written to ${file}`);
}

const loadAtStart = loadavg();
const db = await scratchDatabase('profile');
const servicePort = await freePort();
const nestPort = await freePort();
const children = [];
try {
  const serviceDir = join(dir, 'service');
  const nestDir = join(dir, 'nest');
  mkdirSync(serviceDir, { recursive: true });
  mkdirSync(nestDir, { recursive: true });
  const service = await startService({
    port: servicePort,
    databaseUrl: db.url,
    redisPrefix: `lpbench:profile:${Date.now()}`,
    extraEnv: { ...preload, ...budgetsOff, BENCH_CPU_WINDOW_DIR: serviceDir },
  });
  children.push(service);
  const body = await (await fetch(`http://127.0.0.1:${servicePort}/version`)).text();
  const nest = await startMinimalNest(nestPort, body, { ...preload, BENCH_CPU_WINDOW_DIR: nestDir });
  children.push(nest);
  const targets = [
    {
      name: 'minimal NestJS (Express) GET /version',
      url: `http://127.0.0.1:${nestPort}/version`,
      child: nest,
      dir: nestDir,
    },
    { name: 'service GET /version', url: `http://127.0.0.1:${servicePort}/version`, child: service, dir: serviceDir },
  ];
  for (const t of targets) await autocannon(t.url, { connections, duration: 2 });
  for (const t of targets) {
    t.child.kill('SIGHUP');
    await sleep(100);
    const before = cpuUs(t.child.pid);
    const r = await autocannon(t.url, { connections, duration });
    const used = cpuUs(t.child.pid) - before;
    t.child.kill('SIGHUP');
    await written(join(t.dir, '1.cpuprofile'));
    t.requests = Math.round(r.rps * duration);
    t.cpuUsPerRequest = used / t.requests;
    t.rps = Math.round(r.rps);
    t.errors = r.errors;
  }
  for (const t of targets) {
    console.log(
      `\n===== ${t.name}: ${t.requests} requests, ${t.rps} req/s, errors ${t.errors}, ` +
        `CPU ${t.cpuUsPerRequest.toFixed(1)} µs per request (profiler on)`,
    );
    console.log(
      execFileSync(
        process.execPath,
        ['bench/cpuprofile-summary.mjs', join(t.dir, '1.cpuprofile'), '--per', String(t.requests), '--top', top],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      ),
    );
  }
  console.log(`load average at start ${loadAtStart}, at end ${loadavg()}; profiles in ${dir}`);
} finally {
  for (const c of children) await stop(c);
  await db.drop();
}
