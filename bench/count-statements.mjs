// Preloaded into the service (`--import`, by bench/lti.mjs, bench/passkeys.mjs and bench/round-trips.mjs): counts the
// SQL statements the service sends (every pg Client#query, so pool queries and transactions alike) and its Redis
// commands and round trips (ioredis: a command sent alone is one round trip; a pipeline, explicit or automatic, is one
// for all its commands). On SIGUSR2 it writes the counts to BENCH_STATEMENTS_FILE: the statement count alone (what
// lti.mjs reads), or with BENCH_COUNT_JSON=1 a JSON object of the three. With BENCH_STATEMENTS_TEXT_FILE set, the same
// signal also writes there the count of each statement's text so far (JSON, text => count), for a list of what a
// request sends. The counts do not depend on the machine's load, unlike the timings beside them.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import pg from 'pg';

let statements = 0;
let redisCommands = 0;
let redisRoundTrips = 0;
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

// ioredis as the service resolves it (from the working directory: the built service runs from the project root).
try {
  const require = createRequire(`${process.cwd()}/package.json`);
  const { default: Redis, Pipeline } = require('ioredis');
  const sendCommand = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function countedCommand(command, stream) {
    redisCommands++;
    // A pipeline (explicit or automatic) sends its commands with its own buffer stream: counted once, at exec.
    if (!stream) redisRoundTrips++;
    return sendCommand.call(this, command, stream);
  };
  const exec = Pipeline.prototype.exec;
  Pipeline.prototype.exec = function countedExec(...args) {
    redisRoundTrips++;
    return exec.apply(this, args);
  };
} catch {
  // No ioredis: SQL only.
}

process.on('SIGUSR2', () => {
  if (textFile) writeFileSync(textFile, JSON.stringify(Object.fromEntries(byText)));
  writeFileSync(
    process.env.BENCH_STATEMENTS_FILE,
    process.env.BENCH_COUNT_JSON ? JSON.stringify({ statements, redisCommands, redisRoundTrips }) : String(statements),
  );
});
