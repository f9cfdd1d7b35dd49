// Preloaded into the service (`--import`) by bench/scim-statements.mjs: per SQL statement text (whitespace folded),
// how many times the service sent it (every pg Client#query: pool queries and transactions alike) and the time to
// its answer. On SIGUSR2 it writes what it gathered since the last signal to SQLSTATS_FILE and starts again; with
// SQLSTATS_CPU_PROFILE set it also profiles the CPU between two signals, written beside it as `<n>.cpuprofile`.
// Counts do not depend on the machine's load; the times beside them do, and are only for ranking.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';

let stats = new Map();
let total = 0;
const query = pg.Client.prototype.query;
const key = (q) => (typeof q === 'string' ? q : (q?.text ?? String(q))).replace(/\s+/g, ' ').trim().slice(0, 400);
pg.Client.prototype.query = function statsQuery(...args) {
  const k = key(args[0]);
  const t0 = performance.now();
  total++;
  const add = () => {
    const s = stats.get(k) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += performance.now() - t0;
    stats.set(k, s);
  };
  const at = args.findIndex((a) => typeof a === 'function');
  if (at >= 0) {
    const callback = args[at];
    args[at] = function answered(...r) {
      add();
      return callback.apply(this, r);
    };
    return query.apply(this, args);
  }
  const result = query.apply(this, args);
  if (result && typeof result.then === 'function') result.then(add, add);
  else add();
  return result;
};

const file = process.env.SQLSTATS_FILE;
let session = null;
let windows = 0;
if (process.env.SQLSTATS_CPU_PROFILE) {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
process.on('SIGUSR2', async () => {
  const rows = [...stats.entries()].sort((a, b) => b[1].n - a[1].n).map(([sql, s]) => ({ sql, ...s }));
  const out = { total, rows };
  stats = new Map();
  total = 0;
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${file}.${windows++}.cpuprofile`, JSON.stringify(profile));
    await session.post('Profiler.start');
  }
  writeFileSync(file, JSON.stringify(out));
});
