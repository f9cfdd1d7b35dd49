import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The file vocabulary of an area (README, "Where things live"; docs/DECISIONS.md, "One shape per area"). A file in
 * `src/modules/<context>/<area>/` is `<name>[.<kind>][.spec].ts` with a kebab-case name and a kind from this list;
 * a name without a kind is an internal helper (pure rules, formats, clients).
 */
export const KINDS = [
  'module',
  'controller',
  'service',
  'repository',
  'jobs', // job definitions; their handler class in `<area>-handlers.jobs.ts`
  'schedules', // schedules that nothing enqueues, with their handler
  'subscribers', // domain-event reactions
  'mails',
  'limits',
  'personal-data',
  'tables', // the tables the area owns and the read views it gives others
  'types',
  'port',
  'guard',
  'strategy',
  'gateway',
  'interceptor',
  'provider',
  'store',
  'dto', // only under dto/
  'entity', // only under entities/
] as const;

/** Kinds an area has one of: named `<area>` or, for a sub-file of a large area, `<area>-<topic>`. */
export const AREA_NAMED_KINDS = [
  'module',
  'jobs',
  'schedules',
  'subscribers',
  'mails',
  'limits',
  'personal-data',
  'tables',
];

/** A plain name may not hide a kind (`notification-jobs.ts`, `foo-definitions.ts`). */
const HIDDEN_KIND = /-(jobs?|schedules?|subscribers?|mails?|limits|rate-limits|definitions|processor|maintenance)$/;
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why `relative` (a path under src/modules, with `/`) breaks the vocabulary, or null when it follows it. */
export function vocabularyViolation(relative: string): string | null {
  const parts = relative.split('/');
  if (parts.length < 3) return 'a file must sit in an area: src/modules/<context>/<area>/';
  const area = parts[1];
  const inArea = parts.slice(2);
  const file = inArea[inArea.length - 1];
  const folders = inArea.slice(0, -1);
  if (!file.endsWith('.ts')) return null;
  if (file === 'index.ts' || file === 'testing.ts') {
    return folders.length === 0 ? null : `${file}: an area has one ${file}, at its top`;
  }
  const segments = file.slice(0, -'.ts'.length).split('.');
  if (segments[segments.length - 1] === 'spec') segments.pop();
  const [name, kind, ...rest] = segments;
  if (rest.length > 0) return `too many dotted parts in ${file}: use <name>.<kind>.ts`;
  if (!KEBAB.test(name)) return `${file}: the name must be kebab-case`;
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind)) {
    return `${file}: .${kind}.ts is not a kind of the vocabulary (${KINDS.join(', ')})`;
  }
  if (kind === undefined && HIDDEN_KIND.test(name)) {
    return `${file}: a kind hidden in a plain name; use <area>.<kind>.ts or <area>-<topic>.<kind>.ts`;
  }
  if (kind === 'dto' && folders[0] !== 'dto') return `${file}: DTOs live in dto/`;
  if (folders[0] === 'dto' && kind !== 'dto' && !file.endsWith('.spec.ts')) return `${file}: dto/ holds *.dto.ts only`;
  if (kind === 'entity' && folders[folders.length - 1] !== 'entities') return `${file}: entities live in entities/`;
  if (kind !== undefined && AREA_NAMED_KINDS.includes(kind) && name !== area && !name.startsWith(`${area}-`)) {
    return `${file}: an area's .${kind}.ts is named ${area}.${kind}.ts or ${area}-<topic>.${kind}.ts`;
  }
  return null;
}

/** Every violation under `modulesRoot` (a src/modules folder), as `path: reason`. */
export function vocabularyViolations(modulesRoot: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const relative = path.relative(modulesRoot, full).split(path.sep).join('/');
        const why = vocabularyViolation(relative);
        if (why) out.push(`${relative}: ${why}`);
      }
    }
  };
  walk(modulesRoot);
  return out;
}
