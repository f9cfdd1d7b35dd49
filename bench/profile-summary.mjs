// Summarizes a V8 CPU profile (`node --cpu-prof`): self and inclusive time per function, as shares of the
// process's busy samples (idle, program and garbage-collector samples are counted apart).
//   node bench/profile-summary.mjs <file.cpuprofile> [--top 40] [--last-seconds 6] [--match text]
// --last-seconds keeps only the samples of the last N seconds that had work; --busiest S keeps the S seconds with the
// most busy samples (with --with name: the most samples whose stack holds that function, e.g. parserOnIncoming,
// so a load window rather than the start-up or the shutdown). --range A,B keeps seconds A to B from the start;
// --timeline prints busy samples per second (and those under --with) to choose a range.
// --match prints, for functions whose name or url contains the text, their inclusive share and their callers.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? fallback : args[at + 1];
};
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--last-seconds S] [--match text]');
  process.exit(2);
}
const top = Number(opt('top', 40));
const lastSeconds = opt('last-seconds', undefined);
const busiest = opt('busiest', undefined);
const within = opt('with', undefined);
const range = opt('range', undefined);
const timeline = args.includes('--timeline');
const match = opt('match', undefined);

const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Sample times (us since start).
const times = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) times.push((t += d));

const nameOf = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
const special = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

// The window: the last `lastSeconds` seconds ending at the last busy sample.
let lastBusy = -1;
for (let i = profile.samples.length - 1; i >= 0; i--) {
  const n = byId.get(profile.samples[i]);
  if (n.callFrame.functionName !== '(idle)') {
    lastBusy = times[i];
    break;
  }
}
let from = lastSeconds === undefined ? -Infinity : lastBusy - Number(lastSeconds) * 1e6;
let to = lastBusy;
if (range !== undefined) {
  const [a, b] = range.split(',').map(Number);
  from = profile.startTime + a * 1e6;
  to = profile.startTime + b * 1e6;
}
if (timeline) {
  const perSecond = new Map();
  for (let i = 0; i < times.length; i++) {
    const sec = Math.floor((times[i] - profile.startTime) / 1e6);
    const row = perSecond.get(sec) ?? [0, 0];
    let n = byId.get(profile.samples[i]);
    if (n.callFrame.functionName !== '(idle)') row[0]++;
    for (let id = n.id; within !== undefined && id !== undefined; id = parent.get(id)) {
      if (byId.get(id).callFrame.functionName === within) {
        row[1]++;
        break;
      }
    }
    perSecond.set(sec, row);
  }
  for (const [sec, [b, w]] of perSecond) console.log(`${sec}s busy ${b}${within ? ` ${within} ${w}` : ''}`);
  process.exit(0);
}
if (busiest !== undefined) {
  // Sliding window over the samples: the start whose next `busiest` seconds hold the most busy samples.
  const span = Number(busiest) * 1e6;
  const under = (id) => {
    for (let n = id; n !== undefined; n = parent.get(n)) if (byId.get(n).callFrame.functionName === within) return true;
    return false;
  };
  const isBusy = profile.samples.map((id) =>
    within === undefined ? byId.get(id).callFrame.functionName !== '(idle)' : under(id),
  );
  let best = 0;
  let count = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (j < times.length && times[j] < times[i] + span) count += isBusy[j++] ? 1 : 0;
    if (count > best) {
      best = count;
      from = times[i];
      to = times[i] + span;
    }
    count -= isBusy[i] ? 1 : 0;
  }
}

const self = new Map();
const inclusive = new Map();
const callers = new Map();
let busy = 0;
let idle = 0;
let gc = 0;
let program = 0;
for (let i = 0; i < profile.samples.length; i++) {
  if (times[i] < from || times[i] > to) continue;
  const n = byId.get(profile.samples[i]);
  const fn = n.callFrame.functionName;
  if (fn === '(idle)') {
    idle++;
    continue;
  }
  busy++;
  if (fn === '(garbage collector)') gc++;
  if (fn === '(program)') program++;
  const key = nameOf(n);
  self.set(key, (self.get(key) ?? 0) + 1);
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) {
    const node = byId.get(id);
    if (special.has(node.callFrame.functionName)) continue;
    const k = nameOf(node);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + 1);
    if (match && k.includes(match)) {
      const p = parent.get(id);
      const callerKey = p === undefined ? '(none)' : nameOf(byId.get(p));
      const m = callers.get(k) ?? new Map();
      m.set(callerKey, (m.get(callerKey) ?? 0) + 1);
      callers.set(k, m);
    }
  }
}
const pct = (x) => `${((100 * x) / Math.max(1, busy)).toFixed(1)}%`.padStart(6);
console.log(
  `${file}\nbusy samples ${busy} (idle ${idle}); garbage collector ${pct(gc)}, program ${pct(program)} of busy`,
);
console.log(`\nself time, top ${top}`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(v), k);
console.log(`\ninclusive time, top ${top}`);
for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(v), k);
if (match) {
  console.log(`\nmatching "${match}"`);
  for (const [k, m] of [...callers].sort((a, b) => inclusive.get(b[0]) - inclusive.get(a[0]))) {
    console.log(pct(inclusive.get(k)), k);
    for (const [c, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log('        from', pct(v), c);
  }
}
