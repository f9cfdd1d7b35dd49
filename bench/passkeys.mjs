// npm run bench:passkeys: passwordless sign-in verify (`POST /auth/passkeys/verify`: the challenge taken from
// PostgreSQL, the assertion checked by @simplewebauthn/server, the counter recorded, the session opened) against
// the email-code verify (`POST /auth/otp/verify` of an existing account: the code checked, the session opened), in
// the same run, alternating rounds at the same concurrency. Target: passkey verify p99 <= 20 ms.
// The authenticators are nid-webauthn-emulator (software CTAP2) in this process; signing happens outside the timed
// request, as in a browser. Each request comes from its own client address so the per-address limits do not apply.
// Sizes: BENCH_PASSKEY_SIGNINS (timed sign-ins of each kind, default 2 000), BENCH_PASSKEY_PEOPLE (people with a
// passkey, default 50), BENCH_PASSKEY_CONCURRENCY (default 8), BENCH_PASSKEY_ROUNDS (default 2).
// Besides the timings, the SQL statements the service sends per verify of each kind (bench/count-statements.mjs,
// preloaded; background work of the same process in that window included), which do not depend on the machine's load;
// Also the service's CPU time (user + system, /proc) per verify of each kind, less load-dependent than latency.
// BENCH_PASSKEY_STATEMENTS=list also prints each statement of the passkey verify window with its count per verify.
// BENCH_CPU_WINDOW_DIR=<dir> profiles the service during the timed verifies only (bench/cpu-window.mjs): per round,
// <dir>/<2r+1>.cpuprofile is the email-code window and <dir>/<2r+2>.cpuprofile the passkey window.
// BENCH_SERVICE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the whole service instead.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import emulator from 'nid-webauthn-emulator';
import { cpuUs } from './cpu.mjs';
import { freePort, scratchDatabase, startMailSink, startService, stop } from './lib.mjs';

const { default: WebAuthnEmulator, AuthenticatorEmulator, PasskeysCredentialsMemoryRepository } = emulator;
const SIGNINS = Number(process.env.BENCH_PASSKEY_SIGNINS ?? 2_000);
const PEOPLE = Number(process.env.BENCH_PASSKEY_PEOPLE ?? 50);
const CONCURRENCY = Number(process.env.BENCH_PASSKEY_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_PASSKEY_ROUNDS ?? 2);
const WEB = 'http://localhost:3000';
const LIST_STATEMENTS = process.env.BENCH_PASSKEY_STATEMENTS === 'list';
const CPU_WINDOW_DIR = process.env.BENCH_CPU_WINDOW_DIR;
const statementsFile = join(tmpdir(), `passkeys-bench-statements-${process.pid}`);
const textsFile = join(tmpdir(), `passkeys-bench-texts-${process.pid}`);
const preloads = [new URL('./count-statements.mjs', import.meta.url).href];
if (CPU_WINDOW_DIR) {
  mkdirSync(CPU_WINDOW_DIR, { recursive: true });
  preloads.push(new URL('./cpu-window.mjs', import.meta.url).href);
}

let ipCounter = 0;
/** A fresh client address for each request (TRUST_PROXY is on). */
const nextIp = () => {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function post(base, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': nextIp(), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res;
}

async function json(res, what) {
  if (res.status >= 300) throw new Error(`${what} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** `signInCookie` of lib.mjs, each request from its own client address (hundreds of sign-ins pass the limits). */
async function signInCookie(email) {
  const codePromise = mail.nextCode(email);
  await json(await post(base, '/api/v1/auth/otp/request', { email }), 'otp/request');
  const res = await post(base, '/api/v1/auth/otp/verify', { email, code: await codePromise });
  if (res.status !== 200) throw new Error(`otp/verify answered ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** Runs `jobs` with `CONCURRENCY` in flight; each job answers its own timed latency in ms. */
async function pool(jobs) {
  const latencies = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) latencies.push(await jobs[next++]());
    }),
  );
  return latencies;
}

const mail = await startMailSink();
const db = await scratchDatabase('passkeys');
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const api = await startService({
  port,
  databaseUrl: db.url,
  redisPrefix: `lpbench:passkeys:${Date.now()}`,
  smtpUrl: mail.url,
  extraEnv: {
    LOG_LEVEL: 'warn',
    TRUST_PROXY: 'true',
    WEB_URL: WEB,
    PASSKEYS_ENABLED: 'true',
    BENCH_STATEMENTS_FILE: statementsFile,
    ...(LIST_STATEMENTS ? { BENCH_STATEMENTS_TEXT_FILE: textsFile } : {}),
    ...(CPU_WINDOW_DIR ? { BENCH_CPU_WINDOW_DIR: CPU_WINDOW_DIR } : {}),
    NODE_OPTIONS:
      `${preloads.map((p) => `--import ${p}`).join(' ')} ${process.env.BENCH_SERVICE_NODE_OPTIONS ?? ''}`.trim(),
  },
});

/** Reads a file the service writes on a signal (waits for it to appear). */
async function written(file) {
  for (let i = 0; i < 250; i++) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error(`the service did not write ${file}`);
}

/** The service's SQL statements so far, and (BENCH_PASSKEY_STATEMENTS=list) their texts' counts. */
async function statementsSoFar() {
  rmSync(statementsFile, { force: true });
  rmSync(textsFile, { force: true });
  api.kill('SIGUSR2');
  const total = Number(await written(statementsFile));
  return { total, texts: LIST_STATEMENTS ? JSON.parse(await written(textsFile)) : {} };
}

let profiles = 0;
/** Starts (`on`) or stops and writes (`off`) the service's CPU profile of the timed window (BENCH_CPU_WINDOW_DIR). */
async function cpuWindow(on) {
  if (!CPU_WINDOW_DIR) return;
  api.kill('SIGHUP');
  if (on) await new Promise((r) => setTimeout(r, 50));
  else await written(join(CPU_WINDOW_DIR, `${++profiles}.cpuprofile`));
}
try {
  // People with one passkey each: signed in by code, stepped up by code, passkey registered by their authenticator.
  const t0 = performance.now();
  const devices = [];
  for (let i = 0; i < PEOPLE; i++) {
    const email = `passkey${i}@bench.test`;
    const cookie = await signInCookie(email);
    const stepUpCode = mail.nextCode(email);
    await json(await post(base, '/api/v1/auth/step-up/request', {}, { cookie }), 'step-up/request');
    const verified = await post(base, '/api/v1/auth/step-up/verify', { code: await stepUpCode }, { cookie });
    if (verified.status !== 204) throw new Error(`step-up/verify answered ${verified.status}`);
    const stepUp = verified.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const withStepUp = `${cookie}; ${stepUp}`;
    const authenticator = new WebAuthnEmulator(
      new AuthenticatorEmulator({ credentialsRepository: new PasskeysCredentialsMemoryRepository() }),
    );
    const options = await json(
      await post(base, '/api/v1/me/passkeys/registration-options', undefined, { cookie: withStepUp }),
      'registration-options',
    );
    const response = authenticator.createJSON(WEB, options);
    await json(await post(base, '/api/v1/me/passkeys', { response }, { cookie: withStepUp }), 'register');
    devices.push(authenticator);
  }
  // Email-code people: an account each, signed in once already (the timed verify finds an existing account).
  const codePeople = Array.from({ length: SIGNINS }, (_, i) => `code${i}@bench.test`);
  for (const email of codePeople) await signInCookie(email);
  console.log(
    `setup: ${PEOPLE} people with a passkey, ${SIGNINS} email-code accounts in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const perRound = Math.ceil(SIGNINS / ROUNDS);
  const passkey = [];
  const emailCode = [];
  let codeIndex = 0;
  let codeSql = 0;
  let codeCpu = 0;
  let passkeyCpu = 0;
  let passkeySql = 0;
  const passkeyTexts = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    // Baseline: the codes are requested (and read from the sink) first, only the verify is timed.
    const batch = codePeople.slice(codeIndex, codeIndex + perRound);
    codeIndex += batch.length;
    const codes = [];
    for (const email of batch) {
      const code = mail.nextCode(email);
      await json(await post(base, '/api/v1/auth/otp/request', { email }), 'otp/request');
      codes.push({ email, code: await code });
    }
    const codeSql0 = await statementsSoFar();
    await cpuWindow(true);
    const codeCpu0 = cpuUs(api.pid);
    emailCode.push(
      ...(await pool(
        codes.map(({ email, code }) => async () => {
          const start = performance.now();
          const res = await post(base, '/api/v1/auth/otp/verify', { email, code });
          const ms = performance.now() - start;
          if (res.status !== 200) throw new Error(`otp/verify answered ${res.status}`);
          await res.arrayBuffer();
          return ms;
        }),
      )),
    );
    codeCpu += cpuUs(api.pid) - codeCpu0;
    await cpuWindow(false);
    codeSql += (await statementsSoFar()).total - codeSql0.total;

    // Passkeys: options fetched and signed before the timed verify (what the browser does between the two).
    const answers = [];
    for (let i = 0; i < batch.length; i++) {
      const device = devices[(round * perRound + i) % devices.length];
      const { challenge_id, options } = await json(await post(base, '/api/v1/auth/passkeys/options'), 'options');
      answers.push({ challenge_id, response: device.getJSON(WEB, options) });
    }
    // One person's answers must reach the server in counter order: each worker takes whole people.
    const byPerson = new Map();
    answers.forEach((a, i) => {
      const person = (round * perRound + i) % devices.length;
      byPerson.set(person, [...(byPerson.get(person) ?? []), a]);
    });
    const queues = [...byPerson.values()];
    const passkeySql0 = await statementsSoFar();
    await cpuWindow(true);
    const passkeyCpu0 = cpuUs(api.pid);
    passkey.push(
      ...(
        await pool(
          queues.map((queue) => async () => {
            const times = [];
            for (const answer of queue) {
              const start = performance.now();
              const res = await post(base, '/api/v1/auth/passkeys/verify', answer);
              times.push(performance.now() - start);
              if (res.status !== 200) throw new Error(`passkeys/verify answered ${res.status}: ${await res.text()}`);
              await res.arrayBuffer();
            }
            return times;
          }),
        )
      ).flat(),
    );
    passkeyCpu += cpuUs(api.pid) - passkeyCpu0;
    await cpuWindow(false);
    const passkeySql1 = await statementsSoFar();
    passkeySql += passkeySql1.total - passkeySql0.total;
    for (const [text, count] of Object.entries(passkeySql1.texts)) {
      const delta = count - (passkeySql0.texts[text] ?? 0);
      if (delta > 0) passkeyTexts.set(text, (passkeyTexts.get(text) ?? 0) + delta);
    }
  }

  const line = (name, xs) =>
    `${name}: n=${xs.length} p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms`;
  console.log(`\nNode ${process.version}; ${ROUNDS} alternating rounds, ${CONCURRENCY} requests in flight`);
  console.log(line('baseline, email-code verify (existing account)', emailCode));
  console.log(line('passkey sign-in verify                        ', passkey));
  console.log(
    `SQL statements per verify (background work in the window included): email-code ` +
      `${(codeSql / emailCode.length).toFixed(2)}, passkey ${(passkeySql / passkey.length).toFixed(2)}`,
  );
  console.log(
    `service CPU per verify (user + system, /proc; background work in the window included): email-code ` +
      `${(codeCpu / 1000 / emailCode.length).toFixed(2)} ms, passkey ${(passkeyCpu / 1000 / passkey.length).toFixed(2)} ms`,
  );
  if (LIST_STATEMENTS) {
    for (const [text, count] of [...passkeyTexts].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${(count / passkey.length).toFixed(2)}  ${text.slice(0, 200)}`);
    }
  }
  const p99 = percentile(passkey, 99);
  console.log(
    `passkey verify p99 ${p99.toFixed(1)} ms (target <= 20 ms): ${p99 <= 20 ? 'met' : 'not met'}; ` +
      `ratio to the email-code verify p99: ${(p99 / percentile(emailCode, 99)).toFixed(2)}`,
  );
} finally {
  await stop(api);
  await mail.close();
  await db.drop();
}
