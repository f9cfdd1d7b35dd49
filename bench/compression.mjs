// node bench/compression.mjs: what compressing a JSON answer costs and saves, by size, to choose the threshold of
// src/core/http/response-encoding.ts. No service: the answers are built like the catalog's (cards of courses) and
// the lesson's (markdown), compressed in this process the way the service does (zlib, synchronously), each size
// many times. Prints per size and codec: bytes after, CPU microseconds per answer, and the transfer it saves at
// the reference link (BENCH_LINK_MBIT, 20 Mbit/s: a learner on a mobile or shared connection) in microseconds.
// Compression pays where the time saved on the wire exceeds the CPU spent, with a margin, and where it saves at
// least one TCP segment (1 460 bytes): below that the answer leaves in the same round trip either way.
// Then the cost of the ETag of a revalidated read (SHA-1 of the answer's bytes, as response-encoding.ts computes it)
// against JSON.stringify of the same answer, which every answer pays: a ratio of the same run, whatever the load.
import { hash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const LINK_MBIT = Number(process.env.BENCH_LINK_MBIT ?? 20);
const bytesPerUs = (LINK_MBIT * 1e6) / 8 / 1e6;
const words = 'learn practice python datos historia course lesson example idea worked step progress'.split(' ');
const text = (n, seed) => Array.from({ length: n }, (_, i) => words[(i * 7 + seed) % words.length]).join(' ');
const card = (i) => ({
  id: `0b6f${String(i).padStart(4, '0')}-5a1e-4c1d-9f0e-${String(1e11 + i * 7919).slice(0, 12)}`,
  slug: `course-${i}-${text(2, i).replace(' ', '-')}`,
  title: `${text(3, i)} ${i}`,
  summary: text(14, i),
  language: i % 2 ? 'es' : 'en',
  level: 'beginner',
  tags: [words[i % words.length]],
  lessons_count: 5,
  estimated_minutes: 60,
  rating: { average: 4.2, count: i },
  enrolled: i % 3 === 0,
});
const answers = [];
for (const n of [1, 2, 4, 8, 20, 50, 100]) {
  answers.push([
    `catalog, ${n} cards`,
    JSON.stringify({ items: Array.from({ length: n }, (_, i) => card(i)), total: 500, limit: n, offset: 0 }),
  ]);
}
for (const n of [200, 1000, 4000])
  answers.push([`lesson, ${n} words`, JSON.stringify({ id: 'x', title: 'Lesson', content_md: text(n, 3) })]);
answers.sort((a, b) => a[1].length - b[1].length);

const codecs = {
  'gzip 1': (b) => gzipSync(b, { level: 1 }),
  'gzip 6': (b) => gzipSync(b, { level: 6 }),
  'br 1': (b) =>
    brotliCompressSync(b, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: b.length },
    }),
  'br 4': (b) =>
    brotliCompressSync(b, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: b.length },
    }),
};
console.log(`Node ${process.version}; reference link ${LINK_MBIT} Mbit/s (${bytesPerUs.toFixed(2)} bytes/us)`);
console.log(
  `${'answer'.padEnd(22)} ${'bytes'.padStart(7)}  ${Object.keys(codecs)
    .map((c) => `${c.padStart(6)}: bytes   cpu us  saved us`)
    .join('  ')}`,
);
for (const [name, json] of answers) {
  const buf = Buffer.from(json);
  const cols = [];
  for (const [, fn] of Object.entries(codecs)) {
    for (let i = 0; i < 50; i++) fn(buf); // warm
    const rounds = Math.max(200, Math.floor(2e6 / buf.length));
    const t0 = process.cpuUsage();
    let out;
    for (let i = 0; i < rounds; i++) out = fn(buf);
    const d = process.cpuUsage(t0);
    const cpuUs = (d.user + d.system) / rounds;
    const savedUs = (buf.length - out.length) / bytesPerUs;
    cols.push(`${String(out.length).padStart(13)} ${cpuUs.toFixed(1).padStart(8)} ${savedUs.toFixed(0).padStart(9)}`);
  }
  console.log(`${name.padEnd(22)} ${String(buf.length).padStart(7)}  ${cols.join('  ')}`);
}

/** CPU microseconds per call of `fn`, over enough calls for about 2e6 bytes of `size`. */
function cpuUs(fn, size) {
  for (let i = 0; i < 50; i++) fn();
  const rounds = Math.max(500, Math.floor(4e6 / size));
  const t0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / rounds;
}
console.log(
  `\n${'answer'.padEnd(22)} ${'bytes'.padStart(7)} ${'stringify us'.padStart(13)} ${'ETag us'.padStart(8)} ${'ETag/stringify'.padStart(15)}`,
);
for (const [name, json] of answers) {
  const value = JSON.parse(json);
  const stringify = cpuUs(() => JSON.stringify(value), json.length);
  const etag = cpuUs(() => `W/"${hash('sha1', json, 'base64url')}"`, json.length);
  console.log(
    `${name.padEnd(22)} ${String(json.length).padStart(7)} ${stringify.toFixed(2).padStart(13)} ${etag.toFixed(2).padStart(8)} ${(etag / stringify).toFixed(2).padStart(15)}`,
  );
}
