import { type Filter, parse } from 'scim2-parse-filter';
import { ScimError } from './scim-errors';

/**
 * RFC 7644 section 3.4.2.2 filters, parsed by `scim2-parse-filter` (the whole grammar: `eq ne co sw ew pr gt ge lt
 * le`, `and`, `or`, `not`, parentheses, value paths) and compiled here into a parameterized SQL condition over the
 * attributes a resource type supports. Values only ever travel as parameters; attribute names only ever come from
 * the resource type's table, so nothing the client writes reaches the SQL text. Anything else is 400
 * `invalidFilter`. Filtering never happens in memory: the repository runs the condition with its indexes.
 */

export type ScimAttributeType = 'string' | 'caseExactString' | 'boolean' | 'dateTime';

export interface ScimAttribute {
  /** The SQL expression of the value (over the repository's aliases). */
  readonly sql: string;
  readonly type: ScimAttributeType;
  /** A multi-valued attribute: the comparison is made inside this EXISTS (over its own aliases). */
  readonly exists?: (condition: string) => string;
  /** An equivalent of `eq` that an index serves (the expression alone would be a scan). */
  readonly eq?: (param: string) => string;
}

/** Attributes by lower-cased path (`name.givenname`, `enterprise.department`, `members.value`). */
export type ScimAttributes = Readonly<Record<string, ScimAttribute>>;

const MAX_FILTER_LENGTH = 2_000;
const MAX_DEPTH = 20;

const CORE_URN = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/;
const ENTERPRISE_URN = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:';
/** A multi-valued attribute named alone means its `value` (`members eq "id"`, `emails co "@x"`). */
const VALUE_ALIASES = new Set(['emails', 'members', 'groups']);

/** The normalized (lower-cased, URN-free) path of an attribute as a client may write it. */
export function normalizeAttributePath(path: string): string {
  let p = path.trim().toLowerCase();
  if (p.startsWith(ENTERPRISE_URN)) p = `enterprise.${p.slice(ENTERPRISE_URN.length)}`;
  p = p.replace(CORE_URN, '');
  return VALUE_ALIASES.has(p) ? `${p}.value` : p;
}

export function parseScimFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw ScimError.badRequest('invalidFilter', 'The filter is too long.');
  try {
    return parse(text);
  } catch {
    throw ScimError.badRequest('invalidFilter', 'The filter is not valid RFC 7644 filter syntax.');
  }
}

/**
 * The SQL condition of `filter` over `attributes`; values are appended to `params` (`$n` placeholders continue
 * after what is already there).
 */
export function compileScimFilter(filter: Filter, attributes: ScimAttributes, params: unknown[]): string {
  return compile(filter, attributes, params, '', 0);
}

function compile(f: Filter, attrs: ScimAttributes, params: unknown[], prefix: string, depth: number): string {
  if (depth > MAX_DEPTH) throw ScimError.badRequest('invalidFilter', 'The filter nests too deeply.');
  switch (f.op) {
    case 'and':
    case 'or': {
      const parts = (f as { filters: Filter[] }).filters.map((g) => compile(g, attrs, params, prefix, depth + 1));
      return `(${parts.join(f.op === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'not':
      return `(NOT coalesce(${compile((f as { filter: Filter }).filter, attrs, params, prefix, depth + 1)}, false))`;
    case '[]': {
      const vp = f as { attrPath: string; valFilter: Filter };
      const outer = normalizeAttributePath(vp.attrPath).replace(/\.value$/, '');
      return compile(vp.valFilter, attrs, params, `${prefix}${outer}.`, depth + 1);
    }
    default:
      return comparison(f, attrs, params, prefix);
  }
}

interface Comparison {
  op: string;
  attrPath: string;
  compValue?: boolean | null | number | string;
}

function comparison(c: Comparison, attrs: ScimAttributes, params: unknown[], prefix: string): string {
  const path = normalizeAttributePath(`${prefix}${c.attrPath}`);
  const attr = attrs[path];
  if (!attr) throw ScimError.badRequest('invalidFilter', `Filtering on "${c.attrPath}" is not supported.`);
  const condition = attr.exists ? comparisonOn(attr, c, params, true) : comparisonOn(attr, c, params, false);
  return attr.exists ? attr.exists(condition) : condition;
}

function comparisonOn(attr: ScimAttribute, c: Comparison, params: unknown[], inner: boolean): string {
  const col = attr.sql;
  const op = c.op.toLowerCase();
  if (op === 'pr') {
    return attr.type === 'boolean' || attr.type === 'dateTime' ? `${col} IS NOT NULL` : `coalesce(${col}, '') <> ''`;
  }
  const value = c.compValue;
  if (value === null || value === undefined) {
    if (op === 'eq') return `${col} IS NULL`;
    if (op === 'ne') return `${col} IS NOT NULL`;
    throw ScimError.badRequest('invalidFilter', `"${op}" needs a value.`);
  }
  const param = (v: unknown): string => {
    params.push(v);
    return `$${params.length}`;
  };
  switch (attr.type) {
    case 'boolean': {
      const b = toBoolean(value);
      if (b === null) throw ScimError.badRequest('invalidFilter', `"${c.attrPath}" takes true or false.`);
      if (op === 'eq') return `${col} = ${param(b)}::boolean`;
      if (op === 'ne') return `${col} IS DISTINCT FROM ${param(b)}::boolean`;
      throw ScimError.badRequest('invalidFilter', `"${op}" does not apply to a boolean.`);
    }
    case 'dateTime': {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
        throw ScimError.badRequest('invalidFilter', `"${c.attrPath}" takes a date-time.`);
      }
      const p = `${param(new Date(value).toISOString())}::timestamptz`;
      const sqlOp = ORDER_OPS[op] ?? (op === 'eq' ? '=' : op === 'ne' ? '<>' : null);
      if (!sqlOp) throw ScimError.badRequest('invalidFilter', `"${op}" does not apply to a date-time.`);
      return `${col} ${sqlOp} ${p}`;
    }
    default: {
      if (typeof value === 'boolean') {
        throw ScimError.badRequest('invalidFilter', `"${c.attrPath}" takes a string.`);
      }
      const text = String(value);
      const exact = attr.type === 'caseExactString';
      const lhs = exact ? col : `lower(${col})`;
      const v = exact ? text : text.toLowerCase();
      switch (op) {
        case 'eq':
          return !inner && attr.eq ? attr.eq(param(v)) : `${lhs} = ${param(v)}`;
        case 'ne':
          return `${lhs} IS DISTINCT FROM ${param(v)}`;
        case 'co':
          return `${lhs} LIKE ${param(`%${escapeLike(v)}%`)} ESCAPE '\\'`;
        case 'sw':
          return `${lhs} LIKE ${param(`${escapeLike(v)}%`)} ESCAPE '\\'`;
        case 'ew':
          return `${lhs} LIKE ${param(`%${escapeLike(v)}`)} ESCAPE '\\'`;
        default: {
          const sqlOp = ORDER_OPS[op];
          if (!sqlOp) throw ScimError.badRequest('invalidFilter', `Unknown operator "${op}".`);
          return `${lhs} COLLATE "C" ${sqlOp} ${param(v)}`;
        }
      }
    }
  }
}

const ORDER_OPS: Record<string, string> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

/** `true`/`false`, also as the strings Entra sends (`"True"`, `"False"`). */
export function toBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  return null;
}
