import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from '@migrations';

export interface BuildInfo {
  version: string;
  commit: string;
  build_time: string | null;
  migration: string;
}

let cached: BuildInfo | undefined;

/** `Foundation1763740800000` is the class of the file `1763740800000-Foundation`. */
export function migrationFileName(className: string): string {
  const m = /^(.*?)(\d{13})$/.exec(className);
  return m ? `${m[2]}-${m[1]}` : className;
}

/**
 * What `GET /version` reports. A build writes `dist/build-info.json` (commit and build time injected, the
 * newest migration file read from migrations/); a run from sources (tests) derives the same fields without it.
 */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  // dist/src/core/build-info.js -> dist/build-info.json
  const file = join(__dirname, '..', '..', 'build-info.json');
  if (existsSync(file)) {
    cached = JSON.parse(readFileSync(file, 'utf8')) as BuildInfo;
  } else {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    const last = MIGRATIONS[MIGRATIONS.length - 1];
    cached = {
      version: pkg.version,
      commit: process.env.COMMIT ?? 'unknown',
      build_time: null,
      migration: migrationFileName(last.name),
    };
  }
  return cached;
}
