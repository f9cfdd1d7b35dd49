// node bench/cpu-top.mjs <file.cpuprofile> [n]: the profile's top functions by self time, and self time by package
// (node_modules/<pkg>, the service's own src/<dir>, node internals), in percent of the samples.
import { readFileSync } from 'node:fs';

const [file, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));
const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
const fn = new Map();
const pkg = new Map();
const where = (url) => {
  if (!url) return '(native/vm)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  const s = /dist\/src\/((?:modules\/[^/]+\/[^/]+)|[^/]+\/[^/]+)/.exec(url);
  if (s) return `src/${s[1]}`;
  return url.startsWith('node:') ? 'node:' + url.slice(5).split('/')[0] : url;
};
for (const [id, us] of self) {
  const { callFrame: c } = byId.get(id);
  const name = `${c.functionName || '(anonymous)'} ${c.url ? c.url.replace(/^.*\/(node_modules|dist)\//, '$1/') : ''}:${c.lineNumber + 1}`;
  fn.set(name, (fn.get(name) ?? 0) + us);
  const p = ['(idle)', '(program)', '(garbage collector)'].includes(c.functionName) ? c.functionName : where(c.url);
  pkg.set(p, (pkg.get(p) ?? 0) + us);
}
const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(totalUs / 1e6).toFixed(2)} s sampled`);
console.log('\nby package:');
for (const [k, us] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(us)}  ${k}`);
console.log('\nby function (self):');
for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(us)}  ${k}`);
