import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from 'pg';
import { references } from '../../support/sql-tables';
import {
  declarations,
  type Declaration,
  ownerOf,
  ownership,
  type Ownership,
  ROOT,
  sourceFiles,
  violationsIn,
  type Violation,
} from '../../support/table-ownership';
import { ADMIN_DATABASE_URL, databaseUrl, templateDatabase } from '../../support/test-env';

/** Files that hold no SQL: the areas' SQL lives in `*.repository.ts` (and the personal-data handlers). */
const SQL_FREE = /\.(service|controller|subscribers?|jobs|schedules)\.ts$/;
const SQL_FREE_EXEMPT: Record<string, string> = {
  'src/modules/platform/health/health.service.ts': 'the readiness probe sends SELECT 1 to the pool itself',
};
const CALLS_QUERY = /\.query\s*(<[^(]*?>)?\s*\(/;

/** Tables, views and what each view reads, from a copy of the run's migrated template database. */
async function liveSchema(): Promise<{ tables: string[]; views: Map<string, string[]> }> {
  const name = `${templateDatabase().replace(/_tpl$/, '')}_own${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateDatabase()}"`);
    const db = new Client({ connectionString: databaseUrl(name) });
    await db.connect();
    try {
      const tables = await db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
         ORDER BY table_name`,
      );
      const views = await db.query<{ view_name: string; tables: string[] | null }>(
        `SELECT v.table_name AS view_name,
           array_agg(u.table_name::text ORDER BY u.table_name) FILTER (WHERE u.table_name IS NOT NULL) AS tables
         FROM information_schema.views v
         LEFT JOIN information_schema.view_table_usage u ON u.view_schema = v.table_schema AND u.view_name = v.table_name
         WHERE v.table_schema = 'public' GROUP BY v.table_name ORDER BY v.table_name`,
      );
      return {
        tables: tables.rows.map((r) => r.table_name),
        views: new Map(views.rows.map((r) => [r.view_name, r.tables ?? []])),
      };
    } finally {
      await db.end();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

const key = (v: Pick<Violation, 'owner' | 'access' | 'relation'>): string => `${v.owner} ${v.access} ${v.relation}`;
const where = (v: Violation): string =>
  `${relative(ROOT, v.file)}:${v.line} ${v.access}s ${v.relation} (owner: ${v.tableOwner ?? 'nobody'})`;

describe('table ownership', () => {
  let decls: Declaration[];
  let own: Ownership;
  let schema: { tables: string[]; views: Map<string, string[]> };
  let relations: Set<string>;

  beforeAll(async () => {
    decls = await declarations();
    own = ownership(decls);
    schema = await liveSchema();
    relations = new Set([...schema.tables, ...schema.views.keys()]);
  });

  it('gives every table of the migrated schema exactly one owner, and declares no table that does not exist', () => {
    const owners = new Map<string, string[]>();
    for (const d of decls) for (const t of d.tables) owners.set(t, [...(owners.get(t) ?? []), d.owner]);
    const unowned = schema.tables.filter((t) => !owners.has(t));
    const shared = [...owners].filter(([, o]) => o.length > 1).map(([t, o]) => `${t}: ${o.join(', ')}`);
    const missing = [...owners.keys()].filter((t) => !schema.tables.includes(t));
    expect({ unowned, shared, missing }).toEqual({ unowned: [], shared: [], missing: [] });
  });

  it("declares every view once, and each reads only its owner's tables", () => {
    const declared = new Map<string, string[]>();
    for (const d of decls) for (const v of d.views) declared.set(v, [...(declared.get(v) ?? []), d.owner]);
    const undeclared = [...schema.views.keys()].filter((v) => !declared.has(v));
    const shared = [...declared].filter(([, o]) => o.length > 1).map(([v]) => v);
    const missing = [...declared.keys()].filter((v) => !schema.views.has(v));
    const foreign = [...schema.views]
      .filter(([v]) => declared.has(v))
      .flatMap(([v, tables]) =>
        tables.filter((t) => own.tableOwner.get(t) !== own.viewOwner.get(v)).map((t) => `${v} reads ${t}`),
      );
    expect({ undeclared, shared, missing, foreign }).toEqual({ undeclared: [], shared: [], missing: [], foreign: [] });
  });

  it("finds no SQL writing another area's table or reading one past its owner's views", () => {
    const found: Violation[] = [];
    for (const file of sourceFiles()) {
      const owner = ownerOf(file);
      if (!owner) continue;
      found.push(...violationsIn(readFileSync(file, 'utf8'), file, owner, own, relations));
    }
    expect(found.map(where)).toEqual([]);
  });

  it('runs SQL in repositories and personal-data handlers only: no service, controller, subscriber or job calls query()', () => {
    const offenders = sourceFiles()
      .map((f) => relative(ROOT, f).split('\\').join('/'))
      .filter((f) => f.startsWith('src/modules/') && SQL_FREE.test(f) && !(f in SQL_FREE_EXEMPT))
      .filter((f) => CALLS_QUERY.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
    expect(CALLS_QUERY.test('await tx.manager.query<{ n: number }[]>(`SELECT 1`)')).toBe(true);
  });

  it('refuses a fixture that writes a foreign table or reads one directly, and accepts the owner view', () => {
    const fixture = `
      const sql = \`INSERT INTO users (id) SELECT e.user_id FROM enrollments e
        JOIN enrollments_read r ON r.id = e.id WHERE e.organization_id = $1\`;
      const mine = \`SELECT 1 FROM learning_activity_hourly\`;
    `;
    const found = violationsIn(fixture, 'fixture.ts', 'insight/stats', own, relations).map(key);
    expect(found.sort()).toEqual(['insight/stats read enrollments', 'insight/stats write users']);
  });

  it('reads the relations of each clause that names one, and not columns, aliases or CTEs', () => {
    const names = new Set(['users', 'enrollments', 'courses', 'lessons', 'reports', 'cohorts']);
    const of = (sql: string) => references(sql, names).references.map((r) => `${r.access} ${r.name}`);
    expect(of(`WITH courses AS (SELECT 1) SELECT u.courses FROM courses, users u`)).toEqual(['read users']);
    expect(of(`UPDATE reports r SET x = 1 FROM enrollments e, lessons l WHERE r.id = e.id`)).toEqual([
      'write reports',
      'read enrollments',
      'read lessons',
    ]);
    expect(of(`DELETE FROM users USING cohorts c WHERE 'FROM courses' <> $1 -- JOIN lessons`)).toEqual([
      'write users',
      'read cohorts',
    ]);
    expect(
      of(`INSERT INTO reports SELECT * FROM (SELECT id FROM courses) x ON CONFLICT (id) DO UPDATE SET a = 1`),
    ).toEqual(['write reports', 'read courses']);
    expect(of(`SELECT extract(epoch FROM now()) FROM ONLY lessons LEFT JOIN LATERAL (SELECT 1) y ON true`)).toEqual([
      'read lessons',
    ]);
  });
});
