import { Logger } from '@nestjs/common';
import { outsideOpenTransaction } from './open-transaction';
import { Client, type ClientConfig } from 'pg';
import { TENANCY_EXEMPTIONS, type TenancyExemption } from './tenancy';

export type TenancyGuardMode = 'refuse' | 'log' | 'off';

/** A statement on an organization's table without the built organization predicate and without an exemption. */
export class TenancyViolation extends Error {
  constructor(
    readonly reason: string,
    readonly sql: string,
  ) {
    super(`Tenancy guard: ${reason}: ${sql.replace(/\s+/g, ' ').trim().slice(0, 300)}`);
    this.name = 'TenancyViolation';
  }
}

/** What the guard learned of one statement text; statements are few and fixed, so this is computed once each. */
interface Analysis {
  /** Null when the statement is acceptable. */
  readonly violation: string | null;
  /** Parameter positions (1-based) of the built predicates: one organization id, or a list of them. */
  readonly single: readonly number[];
  readonly list: readonly number[];
  /** Positions of an optional organization filter (`$n::uuid IS NULL OR ...`): null there means "any". */
  readonly optional: ReadonlySet<number>;
}

// A built predicate; `= ''` is one whose parameter was written as a literal (COPY takes no parameters).
const BUILT = /\/\*org\*\/ (?:[a-z_][a-z0-9_]*\.)?organization_id = (?:\$(\d+)|ANY\(\$(\d+)::uuid\[\]\)|'')/g;
const HAND_WRITTEN = /\borganization_id\s*=\s*(?:\$\d|ANY\s*\(\s*\$\d)/i;
const EXEMPT = /\/\*tenancy-exempt:([a-z-]+)\*\//g;
/** Tables a statement reads or changes: after FROM, JOIN, UPDATE, USING (and the rest of a FROM list). */
const TABLE_REF = /\b(?:from|join|update|using)\s+(?:only\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)"?/gi;
const FROM_LIST_REST = /^\s*(?:(?:as\s+)?[a-z_][a-z0-9_]*\s*)?,\s*(?:public\.)?"?([a-z_][a-z0-9_]*)"?/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CACHE_LIMIT = 20_000;

/** Strips string literals and comments other than the guard's own marks, so neither can fake or hide a table. */
function code(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*(?!org\*\/|tenancy-exempt:)[\s\S]*?\*\//g, ' ');
}

/**
 * Checks every statement before it is sent: one that reads or changes a table with an `organization_id` column
 * (the list is read from the schema at start) must carry the organization predicate built by `orgEq`/`orgAny`/
 * `orgParam` (src/core/database/tenancy.ts) or name a reviewed exemption; a hand-written `organization_id = $n`
 * is refused too, and the parameter of a built predicate must be an organization id (a uuid, or a list of them).
 * INSERT targets are not checked (the row's organization is one of its values). The verdict on a statement text
 * is kept, so the cost after the first run of a statement is one map look-up plus the parameter check.
 */
export class TenancyGuard {
  private readonly logger = new Logger('TenancyGuard');
  private readonly cache = new Map<string, Analysis>();

  constructor(
    readonly tables: ReadonlySet<string>,
    readonly mode: TenancyGuardMode,
  ) {}

  /** Throws a TenancyViolation (mode `refuse`) or logs it once (mode `log`). */
  check(sql: string, values?: readonly unknown[]): void {
    const violation = this.violation(sql, values);
    if (violation) throw violation;
  }

  /** The violation to refuse the statement with (mode `refuse`), else null; mode `log` logs it once. */
  violation(sql: string, values?: readonly unknown[]): TenancyViolation | null {
    if (this.mode === 'off') return null;
    let analysis = this.cache.get(sql);
    if (!analysis) {
      analysis = this.analyse(sql);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(sql, analysis);
      if (analysis.violation && this.mode === 'log')
        this.logger.warn(new TenancyViolation(analysis.violation, sql).message);
    }
    const violation = analysis.violation ?? this.parameterViolation(analysis, values);
    return violation && this.mode === 'refuse' ? new TenancyViolation(violation, sql) : null;
  }

  private parameterViolation(analysis: Analysis, values: readonly unknown[] | undefined): string | null {
    for (const n of analysis.single) {
      const value = values?.[n - 1];
      if (value === null && analysis.optional.has(n)) continue;
      if (typeof value !== 'string' || !UUID.test(value))
        return `parameter $${n} of the organization predicate is not an organization id`;
    }
    for (const n of analysis.list) {
      const value = values?.[n - 1];
      if (value === null && analysis.optional.has(n)) continue;
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && UUID.test(v))) {
        return `parameter $${n} of the organization predicate is not a list of organization ids`;
      }
    }
    return null;
  }

  private analyse(sql: string): Analysis {
    const text = code(sql);
    const single: number[] = [];
    const list: number[] = [];
    let built = 0;
    for (const m of text.matchAll(BUILT)) {
      built++;
      if (m[1]) single.push(Number(m[1]));
      else if (m[2]) list.push(Number(m[2]));
    }
    const optional = new Set([...text.matchAll(/\$(\d+)::uuid(?:\[\])? IS NULL\b/gi)].map((m) => Number(m[1])));
    const verdict = (violation: string | null): Analysis => ({ violation, single, list, optional });

    const exemptions = [...text.matchAll(EXEMPT)].map((m) => m[1]);
    const unknown = exemptions.find((name) => !(name in TENANCY_EXEMPTIONS));
    if (unknown) return verdict(`unknown tenancy exemption "${unknown}"`);
    if (exemptions.length > 0) return verdict(null);

    const rest = text.replace(BUILT, ' ');
    let violation: string | null = null;
    if (HAND_WRITTEN.test(rest))
      violation = 'hand-written organization predicate (build it with orgEq/orgAny/orgParam)';
    else if (built === 0) {
      const touched = this.touchedTables(text);
      if (touched.length > 0) violation = `no organization predicate on ${touched.join(', ')}`;
    }
    if (violation && exemptedByCaller()) return verdict(null);
    return verdict(violation);
  }

  private touchedTables(text: string): string[] {
    const found = new Set<string>();
    for (const m of text.matchAll(TABLE_REF)) {
      const name = m[1].toLowerCase();
      if (this.tables.has(name)) found.add(name);
      // `FROM a x, b y`: the tables after the first of a FROM list.
      let tail = text.slice(m.index + m[0].length);
      for (let next = FROM_LIST_REST.exec(tail); next; next = FROM_LIST_REST.exec(tail)) {
        if (this.tables.has(next[1].toLowerCase())) found.add(next[1].toLowerCase());
        tail = tail.slice(next[0].length);
      }
    }
    return [...found].sort();
  }
}

/** Whether a file-wide exemption covers the code that sent the statement (read from the call's stack). */
function exemptedByCaller(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 80;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return Object.values(TENANCY_EXEMPTIONS).some((e) => 'files' in e && e.files.test(stack));
}

/** The exemption names callers may use (for listings and tests). */
export const TENANCY_EXEMPTION_NAMES = Object.keys(TENANCY_EXEMPTIONS) as TenancyExemption[];

type QueryCallback = (err: Error | null, result?: unknown) => void;

/** A statement sent on the pool from inside an open transaction of another connection (see `open-transaction`). */
export class OutsideTransactionError extends Error {
  constructor(sql: string) {
    super(
      `A statement ran on another pool connection while its caller's transaction is open: pass the transaction to ` +
        `the repository. Statement: ${sql.replace(/\s+/g, ' ').slice(0, 200)}`,
    );
    this.name = 'OutsideTransactionError';
  }
}

/**
 * The pg client class the application's pool uses: every statement, from TypeORM, transactions or the pool's own
 * `query`, passes the guard first. A refused statement is never sent; the caller gets the error as a failed query.
 * With `refuseOutsideTransaction` (development and tests), it also refuses a statement that work inside an open
 * transaction sends on another connection instead of through the transaction.
 */
export function guardedClient(
  guard: TenancyGuard,
  options: { refuseOutsideTransaction?: boolean } = {},
): typeof Client {
  const checkTransactions = options.refuseOutsideTransaction === true;
  if (guard.mode === 'off' && !checkTransactions) return Client;
  class GuardedClient extends Client {
    constructor(config?: string | ClientConfig) {
      super(config);
    }

    // pg's overloads are many; the guard only reads the text and values and passes everything on unchanged.
    override query(...args: unknown[]): never {
      const [first, second] = args;
      const sql = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
      if (typeof sql === 'string') {
        const values = Array.isArray(second) ? second : (first as { values?: unknown[] } | null)?.values;
        const err =
          checkTransactions && outsideOpenTransaction(this)
            ? new OutsideTransactionError(sql)
            : guard.violation(sql, values);
        if (err) {
          const callback = args.find((a): a is QueryCallback => typeof a === 'function');
          if (callback) {
            process.nextTick(callback, err);
            return undefined as never;
          }
          return Promise.reject(err) as never;
        }
      }
      return (super.query as (...a: unknown[]) => never)(...args);
    }
  }
  return GuardedClient;
}

/** The organization-scoped tables of the connected schema: those with an organization_id column. */
export async function organizationTables(url: string): Promise<Set<string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT DISTINCT table_name FROM information_schema.columns
        WHERE column_name = 'organization_id' AND table_schema = current_schema()`,
    );
    return new Set(rows.map((r) => r.table_name));
  } finally {
    await client.end();
  }
}
