/*
 * The table-ownership check (issue 24, "Owned tables"): every table has one owning area, only the owner's SQL
 * writes it, and another area reads it only through a read view the owner declares. Pure functions over the
 * declarations, the live schema and the SQL literals of the source, so a fixture can prove what it refuses.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { literalsOf, type SqlReference } from './sql-tables';

export const ROOT = join(__dirname, '..', '..');

export interface Declaration {
  owner: string;
  file: string;
  tables: readonly string[];
  views: readonly string[];
}

export interface Violation {
  owner: string;
  file: string;
  line: number;
  relation: string;
  access: SqlReference['access'];
  /** The area that owns the table (null: no one declares it). */
  tableOwner: string | null;
}

/** `src/modules/<context>/<area>/...` belongs to `<context>/<area>`; everything under `src/core/` to `core`. */
export function ownerOf(file: string): string | null {
  const rel = relative(ROOT, file).split('\\').join('/');
  const area = /^src\/modules\/([^/]+\/[^/]+)\//.exec(rel);
  if (area) return area[1];
  if (rel.startsWith('src/core/')) return 'core';
  return null;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

/** The source files whose SQL is checked: everything under src/modules and src/core but specs. */
export function sourceFiles(): string[] {
  return [join(ROOT, 'src', 'modules'), join(ROOT, 'src', 'core')]
    .flatMap((dir) => walk(dir))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
    .sort();
}

/** Every `*.tables.ts` declaration, one per area (and one for the core). */
export async function declarations(): Promise<Declaration[]> {
  const files = sourceFiles().filter((f) => f.endsWith('.tables.ts'));
  const out: Declaration[] = [];
  for (const file of files) {
    const owner = ownerOf(file);
    if (!owner) throw new Error(`${file}: a tables declaration outside an area`);
    const mod = (await import(file)) as { OWNED_TABLES?: readonly string[]; READ_VIEWS?: readonly string[] };
    if (!Array.isArray(mod.OWNED_TABLES) || !Array.isArray(mod.READ_VIEWS)) {
      throw new Error(`${file}: exports OWNED_TABLES and READ_VIEWS`);
    }
    out.push({ owner, file: relative(ROOT, file), tables: mod.OWNED_TABLES, views: mod.READ_VIEWS });
  }
  return out;
}

export interface Ownership {
  tableOwner: Map<string, string>;
  viewOwner: Map<string, string>;
}

export function ownership(decls: Declaration[]): Ownership {
  const tableOwner = new Map<string, string>();
  const viewOwner = new Map<string, string>();
  for (const d of decls) {
    for (const t of d.tables) tableOwner.set(t, d.owner);
    for (const v of d.views) viewOwner.set(v, d.owner);
  }
  return { tableOwner, viewOwner };
}

/**
 * The references of one file's SQL that break the rule: a write of a table the file's area does not own, a read of
 * another area's table (not one of its declared views).
 */
export function violationsIn(
  source: string,
  file: string,
  owner: string,
  own: Ownership,
  relations: ReadonlySet<string>,
): Violation[] {
  const out: Violation[] = [];
  for (const literal of literalsOf(source, file, relations)) {
    for (const ref of literal.references) {
      if (own.viewOwner.has(ref.name)) {
        if (ref.access === 'write') {
          out.push({
            owner,
            file,
            line: literal.line,
            ...ref,
            relation: ref.name,
            tableOwner: own.viewOwner.get(ref.name)!,
          });
        }
        continue;
      }
      const tableOwner = own.tableOwner.get(ref.name) ?? null;
      if (tableOwner !== owner) {
        out.push({ owner, file, line: literal.line, relation: ref.name, access: ref.access, tableOwner });
      }
    }
  }
  return out;
}
