// Preloaded into the service by bench/lti.mjs and bench/passkeys.mjs (`--import`): counts the SQL statements the
// service sends (every pg Client#query, so pool queries and transactions alike) and, on SIGUSR2, writes the count to
// BENCH_STATEMENTS_FILE. The count does not depend on the machine's load, unlike the timings beside it.
// With BENCH_STATEMENTS_TEXT_FILE set, the same signal also writes there the count of each statement's text so far
// (JSON, text => count), for a list of what a request sends.
import { writeFileSync } from 'node:fs';
import pg from 'pg';

let statements = 0;
const byText = new Map();
const textFile = process.env.BENCH_STATEMENTS_TEXT_FILE;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  statements++;
  if (textFile) {
    const first = args[0];
    const text = String(typeof first === 'string' ? first : (first?.text ?? '?'))
      .replace(/\s+/g, ' ')
      .trim();
    byText.set(text, (byText.get(text) ?? 0) + 1);
  }
  return query.apply(this, args);
};
process.on('SIGUSR2', () => {
  if (textFile) writeFileSync(textFile, JSON.stringify(Object.fromEntries(byText)));
  writeFileSync(process.env.BENCH_STATEMENTS_FILE, String(statements));
});
