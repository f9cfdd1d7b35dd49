// Preloaded into the service by bench/lti.mjs (`--import`): counts the SQL statements the service sends (every
// pg Client#query, so pool queries and transactions alike) and, on SIGUSR2, writes the count to
// BENCH_STATEMENTS_FILE. The count does not depend on the machine's load, unlike the timings beside it.
import { writeFileSync } from 'node:fs';
import pg from 'pg';

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  statements++;
  return query.apply(this, args);
};
process.on('SIGUSR2', () => writeFileSync(process.env.BENCH_STATEMENTS_FILE, String(statements)));
