// Writes dist/build-info.json: the values /version reports, fixed at build time.
// COMMIT and BUILD_TIME come from the environment (the Docker build args), else from git and the clock.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const migrations = readdirSync('migrations')
  .filter((f) => /^\d{13}-.+\.ts$/.test(f))
  .sort();
const info = {
  version: pkg.version,
  commit: process.env.COMMIT || gitCommit(),
  build_time: process.env.BUILD_TIME || new Date().toISOString(),
  migration: migrations.length ? migrations[migrations.length - 1].replace(/\.ts$/, '') : null,
};
writeFileSync('dist/build-info.json', JSON.stringify(info, null, 2) + '\n');
console.log(`build-info: ${info.version} ${info.commit.slice(0, 12)} ${info.build_time} ${info.migration}`);
