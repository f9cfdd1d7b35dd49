import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SPEC = '.e2e-spec.ts';
const GROUP = '.e2e-group.ts';

/** The spec names a group file passes to `e2eGroup(__dirname, [...])`, or null when it has no such call. */
export function groupEntries(source: string): string[] | null {
  const call = /e2eGroup\(\s*__dirname\s*,\s*\[([^\]]*)\]\s*\)/.exec(source);
  if (!call) return null;
  return [...call[1].matchAll(/'([^']*)'/g)].map((m) => m[1]);
}

/**
 * What is wrong with the e2e groups under `root` (test/e2e: one folder per context): a spec in no group (it
 * would never run) or in two, a group entry naming no spec of the group's own folder, a group without the call.
 */
export function groupViolations(root: string): string[] {
  const problems: string[] = [];
  const groupsOf = new Map<string, string[]>();
  for (const context of readdirSync(root, { withFileTypes: true })) {
    if (!context.isDirectory()) continue;
    const dir = path.join(root, context.name);
    const files = readdirSync(dir);
    for (const spec of files.filter((f) => f.endsWith(SPEC)))
      groupsOf.set(`${context.name}/${spec.slice(0, -SPEC.length)}`, []);
    for (const group of files.filter((f) => f.endsWith(GROUP))) {
      const where = `${context.name}/${group}`;
      const entries = groupEntries(readFileSync(path.join(dir, group), 'utf8'));
      if (entries === null) {
        problems.push(`${where}: no e2eGroup(__dirname, [...]) call`);
        continue;
      }
      for (const entry of entries) {
        const key = `${context.name}/${entry}`;
        const owners = entry.includes('/') ? undefined : groupsOf.get(key);
        if (owners === undefined) {
          problems.push(`${where}: '${entry}' is not a spec of ${context.name}/`);
          continue;
        }
        owners.push(where);
      }
    }
  }
  for (const [spec, owners] of groupsOf) {
    if (owners.length === 0) problems.push(`${spec}${SPEC}: in no group (it would never run)`);
    if (owners.length > 1) problems.push(`${spec}${SPEC}: in ${owners.length} groups (${owners.join(', ')})`);
  }
  return problems.sort();
}
