// node bench/cpuprofile-summary.mjs <file.cpuprofile>... [--top N] [--per N] [--match text]
// Sums V8 CPU profiles (the JSON `--cpu-prof` and bench/cpu-window.mjs write: nodes, samples, timeDeltas) and prints
// per function (name, file, line) the self time and the inclusive time (counted once per sample even when the
// function recurses), in ms and as a share of the busy samples ((idle) left out); `--per N` also divides the ms by N (e.g. the requests of
// the window). `--match` keeps the functions whose name or file contains the text (case-insensitive).
// Relative costs only: a profile is taken on a shared machine.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const top = Number(option('--top', 40));
const per = Number(option('--per', 0));
const match = option('--match', '')?.toLowerCase();

const self = new Map();
const inclusive = new Map();
let totalUs = 0;
let idleUs = 0;
const shortUrl = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '~/')
    .replace(/^.*\/dist\//, 'dist/');
for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n) => {
    const f = n.callFrame;
    return `${f.functionName || '(anonymous)'}  ${f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
  };
  const stacks = new Map();
  const stackOf = (id) => {
    let keys = stacks.get(id);
    if (!keys) {
      keys = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) keys.add(key(byId.get(at)));
      stacks.set(id, keys);
    }
    return keys;
  };
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0; // the delta after a sample is the time it stood for
    const k = key(byId.get(id));
    if (k === '(idle)') {
      idleUs += us;
      return;
    }
    totalUs += us;
    self.set(k, (self.get(k) ?? 0) + us);
    for (const s of stackOf(id)) inclusive.set(s, (inclusive.get(s) ?? 0) + us);
  });
}
const ms = (us) => (us / 1000).toFixed(1).padStart(8);
const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
const perReq = (us) => (per ? `${(us / 1000 / per).toFixed(3).padStart(7)} ms/req` : '');
const show = (title, map) => {
  console.log(`\n${title}`);
  [...map]
    .filter(([k]) => !match || k.toLowerCase().includes(match))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, us]) => console.log(`${ms(us)} ms ${pct(us)} ${perReq(us)}  ${k}`));
};
console.log(
  `busy ${ms(totalUs)} ms sampled (idle ${ms(idleUs)} ms)${per ? `, ${(totalUs / 1000 / per).toFixed(3)} ms per request` : ''}`,
);
show('self time', self);
show('inclusive time', inclusive);
