import type { OpenAPIObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';

/**
 * Completes the description with the limits the code already enforces, so clients (and the Spectral/OWASP lint in
 * the test suite) see them without a second, drifting copy in the decorators:
 *
 * - every `{name}` of a path template is declared as a path parameter of each operation (class-level `@ApiParam`
 *   does not reach every operation), typed `string` (`uuid` for `*_id`);
 * - the class-validator constraints of each DTO become schema keywords: `@MaxLength`/`@Length` -> `maxLength`
 *   (`minLength`), `@Max`/`@Min` -> `maximum`/`minimum`, `@ArrayMaxSize`/`@ArrayMinSize` -> `maxItems`/`minItems`,
 *   `@IsIn` -> `enum`, with `each: true` applied to the items;
 * - a string whose `format` bounds its length gets that bound (`uuid` 36, `date` 10, `date-time` 35, `email` 254,
 *   `uri` 2048, `ipv4`/`ipv6` 45), and every integer a `format` (`int32` when its bounds fit, else `int64`);
 * - every operation documents the `RateLimit` and `RateLimit-Policy` response fields on its 2xx and 4xx answers,
 *   and a 429 with `Retry-After` (request budgets cover every operation; `@RateLimit` adds route limits).
 */
export function documentLimits(doc: OpenAPIObject, budgets?: BudgetLimits): OpenAPIObject {
  declarePathParameters(doc);
  applyValidatorConstraints(doc);
  walkSchemas(doc, boundByFormat);
  documentRateLimitHeaders(doc, budgets);
  return doc;
}

type Schema = Record<string, unknown> & {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  additionalProperties?: Schema | boolean;
};

type Parameter = { name: string; in: string; required?: boolean; schema?: Schema; description?: string };

type Operation = {
  parameters?: Parameter[];
  responses?: Record<string, { headers?: Record<string, unknown>; [k: string]: unknown }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  [ext: `x-${string}`]: unknown;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

function operations(doc: OpenAPIObject): [string, Operation][] {
  const out: [string, Operation][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method];
      if (op && typeof op === 'object') out.push([path, op as Operation]);
    }
  }
  return out;
}

function declarePathParameters(doc: OpenAPIObject): void {
  for (const [path, op] of operations(doc)) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    op.parameters ??= [];
    for (const name of names) {
      if (op.parameters.some((p) => p.in === 'path' && p.name === name)) continue;
      op.parameters.push({
        name,
        in: 'path',
        required: true,
        schema: name.endsWith('_id') ? { type: 'string', format: 'uuid' } : { type: 'string' },
      });
    }
    for (const p of op.parameters) {
      if (!p.schema) continue;
      if (p.schema.type === undefined && !('$ref' in p.schema) && !p.schema.oneOf && !p.schema.anyOf) {
        p.schema.type = 'string';
      }
      // Every id of this API is a UUID (a malformed one is 404 before any query).
      if (p.in === 'path' && p.schema.type === 'string' && !p.schema.format && /(^id|_id)$/.test(p.name)) {
        p.schema.format = 'uuid';
      }
    }
  }
}

/** Every schema object of the document (components, parameters, bodies, responses), depth first. */
function walkSchemas(doc: OpenAPIObject, visit: (schema: Schema) => void): void {
  const seen = new Set<Schema>();
  const walk = (schema: Schema | boolean | undefined): void => {
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
    seen.add(schema);
    visit(schema);
    for (const child of Object.values(schema.properties ?? {})) walk(child);
    walk(schema.items);
    walk(schema.additionalProperties);
    for (const list of [schema.allOf, schema.oneOf, schema.anyOf]) for (const child of list ?? []) walk(child);
  };
  for (const schema of Object.values(doc.components?.schemas ?? {})) walk(schema as Schema);
  for (const [, op] of operations(doc)) {
    for (const p of op.parameters ?? []) walk(p.schema);
    for (const media of Object.values(op.requestBody?.content ?? {})) walk(media.schema);
    for (const response of Object.values(op.responses ?? {})) {
      const content = (response as { content?: Record<string, { schema?: Schema }> }).content;
      for (const media of Object.values(content ?? {})) walk(media.schema);
      for (const header of Object.values(response.headers ?? {})) walk((header as { schema?: Schema }).schema);
    }
  }
}

const FORMAT_LENGTH: Record<string, number> = {
  uuid: 36,
  date: 10,
  'date-time': 35,
  email: 254,
  uri: 2048,
  url: 2048,
  ipv4: 45,
  ipv6: 45,
};
const INT32_MAX = 2 ** 31 - 1;

function boundByFormat(schema: Schema): void {
  if (schema.type === 'string' && schema.maxLength === undefined && schema.enum === undefined) {
    const bound =
      (schema.format ? FORMAT_LENGTH[schema.format] : undefined) ??
      (typeof schema.pattern === 'string' ? patternMaxLength(schema.pattern) : undefined);
    if (bound !== undefined) schema.maxLength = bound;
  }
  if (schema.type === 'integer' && schema.format === undefined) {
    const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
    const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
    const fits = max !== undefined && max <= INT32_MAX && (min === undefined || min >= -INT32_MAX - 1);
    schema.format = fits ? 'int32' : 'int64';
  }
}

/** A DTO class as class-validator keys its metadata. */
type ClassType = abstract new (...args: never[]) => unknown;

interface ValidationMeta {
  name?: string;
  type: string;
  target: ClassType | string;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
}

/** The DTO classes known to class-validator, by class name (the name @nestjs/swagger gives their schema). */
function validatedClasses(): Map<string, ClassType> {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<ClassType, ValidationMeta[]> };
  const out = new Map<string, ClassType>();
  for (const target of storage.validationMetadatas.keys()) {
    if (typeof target === 'function' && target.name) out.set(target.name, target);
  }
  return out;
}

function applyValidatorConstraints(doc: OpenAPIObject): void {
  const storage = getMetadataStorage();
  const classes = validatedClasses();
  for (const [name, raw] of Object.entries(doc.components?.schemas ?? {})) {
    const cls = classes.get(name);
    const schema = raw as Schema;
    if (!cls || !schema.properties) continue;
    const metas = storage.getTargetValidationMetadatas(cls, '', true, false) as unknown as ValidationMeta[];
    for (const meta of metas) {
      const prop = schema.properties[meta.propertyName];
      if (!prop) continue;
      const target = meta.each && prop.type === 'array' && prop.items && !('$ref' in prop.items) ? prop.items : prop;
      applyConstraint(target, meta);
    }
  }
}

function applyConstraint(schema: Schema, meta: ValidationMeta): void {
  const c = meta.constraints ?? [];
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  switch (meta.name) {
    case 'maxLength':
      schema.maxLength ??= num(c[0]);
      break;
    case 'minLength':
      schema.minLength ??= num(c[0]);
      break;
    case 'isLength':
      schema.minLength ??= num(c[0]);
      schema.maxLength ??= num(c[1]);
      break;
    case 'max':
      schema.maximum ??= num(c[0]);
      break;
    case 'min':
      schema.minimum ??= num(c[0]);
      break;
    case 'arrayMaxSize':
      schema.maxItems ??= num(c[0]);
      break;
    case 'arrayMinSize':
      schema.minItems ??= num(c[0]);
      break;
    case 'matches':
      if (schema.pattern === undefined && c[0] instanceof RegExp && c[0].flags === '') schema.pattern = c[0].source;
      break;
    case 'isIn':
      if (schema.enum === undefined && Array.isArray(c[0])) schema.enum = c[0];
      break;
    default:
  }
  for (const key of ['maxLength', 'minLength', 'maximum', 'minimum', 'maxItems', 'minItems'] as const) {
    if (schema[key] === undefined) delete schema[key];
  }
}

const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description:
      'What is left of each limit of the operation: `"<policy>";r=<remaining>;t=<seconds to reset>` ' +
      '(IETF draft-ietf-httpapi-ratelimit-headers)',
    schema: { type: 'string', maxLength: 500 },
  },
  'RateLimit-Policy': {
    description: 'The limits of the operation: `"<policy>";q=<quota>;w=<window seconds>`',
    schema: { type: 'string', maxLength: 500 },
  },
};

/** The request budgets as the description states them (extensions-v3 4). */
export interface BudgetLimits {
  readonly tokenPerMinute: number;
  readonly sessionPerMinute: number;
  readonly anonymousPerMinute: number;
}

const ENVELOPE = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' } } };
const RETRY_AFTER = {
  description: 'Seconds to wait before trying again',
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 86_400 },
};

export function describeBudgets(b: BudgetLimits): string {
  const per = (n: number, who: string): string | null => (n > 0 ? `${n} per minute per ${who}` : null);
  const parts = [
    per(b.tokenPerMinute, 'token'),
    per(b.sessionPerMinute, 'cookie session'),
    per(b.anonymousPerMinute, 'client address without a credential (IPv6 by its /64)'),
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'off';
}

/**
 * Every operation documents the `RateLimit` fields on its 2xx and 4xx answers and a 429 with `Retry-After`: the
 * request budgets cover every operation (extensions-v3 4) besides the route limits of `@RateLimit`. Probes and
 * metrics (`x-budget: none`) are outside budgets: their entries say the fields are never sent.
 */
function documentRateLimitHeaders(doc: OpenAPIObject, budgets: BudgetLimits | undefined): void {
  const budgetText = budgets ? describeBudgets(budgets) : 'off';
  for (const [, op] of operations(doc)) {
    const outside = op['x-budget'] === 'none';
    const own = op['x-budget'] === 'own';
    const headers = outside
      ? {
          RateLimit: {
            ...RATE_LIMIT_HEADERS.RateLimit,
            description: 'Never sent: this operation is outside request budgets',
          },
          'RateLimit-Policy': {
            ...RATE_LIMIT_HEADERS['RateLimit-Policy'],
            description: 'Never sent: this operation is outside request budgets',
          },
        }
      : RATE_LIMIT_HEADERS;
    op.responses ??= {};
    if (!op.responses['429']) {
      op.responses['429'] = {
        description: outside
          ? 'Never answered: this operation is outside request budgets (probes and metrics)'
          : own
            ? 'Over the limits of the operation’s own credentials (`too_many_requests`, `Retry-After` in seconds)'
            : `Over the request budget (\`too_many_requests\`, header \`Retry-After\` in seconds). Budgets: ${budgetText}`,
        content: ENVELOPE,
      };
    } else if (!outside && !own) {
      const existing = op.responses['429'] as { description?: string };
      existing.description = `${existing.description ?? 'Rate limited'}. Request budgets: ${budgetText}`;
    }
    for (const [status, response] of Object.entries(op.responses)) {
      if (!/^[24]/.test(status)) continue;
      response.headers = { ...headers, ...response.headers };
      if (status === '429') response.headers['Retry-After'] ??= RETRY_AFTER;
    }
  }
}

/**
 * The longest string an anchored pattern (`^...$`) matches, or undefined when it is unbounded (`*`, `+`, `{n,}`) or
 * uses syntax this reader does not know. Reads literals, escapes, classes, groups with alternatives and the
 * quantifiers `?`, `{n}` and `{n,m}`: enough for the patterns of this API (codes, tokens, colors, slugs).
 */
export function patternMaxLength(pattern: string): number | undefined {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return undefined;
  const body = pattern.slice(1, -1);
  let i = 0;
  const alternatives = (): number | undefined => {
    let best = 0;
    let current = 0;
    while (i < body.length && body[i] !== ')') {
      if (body[i] === '|') {
        best = Math.max(best, current);
        current = 0;
        i++;
        continue;
      }
      const atom = atomLength();
      if (atom === undefined) return undefined;
      const times = quantifier();
      if (times === undefined) return undefined;
      current += atom * times;
    }
    return Math.max(best, current);
  };
  const atomLength = (): number | undefined => {
    const c = body[i];
    if (c === '(') {
      i++;
      if (body.startsWith('?:', i)) i += 2;
      const inner = alternatives();
      if (body[i] !== ')') return undefined;
      i++;
      return inner;
    }
    if (c === '[') {
      const end = body.indexOf(']', i + 2);
      if (end < 0) return undefined;
      i = end + 1;
      return 1;
    }
    if (c === '\\') {
      i += 2;
      return 1;
    }
    if ('*+{}?^$'.includes(c)) return undefined;
    i++;
    return 1;
  };
  const quantifier = (): number | undefined => {
    const c = body[i];
    if (c === '*' || c === '+') return undefined;
    if (c === '?') {
      i++;
      return 1;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(body.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      if (m[2] === undefined) return Number(m[1]);
      return m[3] ? Number(m[3]) : undefined;
    }
    return 1;
  };
  const length = alternatives();
  return i === body.length ? length : undefined;
}
