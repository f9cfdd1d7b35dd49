import { type ScimPatchOperation, type ScimResource as PatchableResource, scimPatch } from 'scim-patch';
import { toBoolean } from './scim-filter';
import { ScimError } from './scim-errors';
import { SCHEMA } from './scim-schemas';

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

const OPS = new Set(['add', 'replace', 'remove']);
const MAX_OPERATIONS = 1_000;

/**
 * A `PatchOp` body as clients really send it, made regular: `op` in any case (Entra's `"Replace"`), path-less
 * operations split into one operation per attribute (Entra's `{"emails[type eq \"work\"].value": ...}` keys are
 * paths), attribute names in any case. 400 `invalidSyntax` when it is not a PatchOp.
 */
export function normalizePatch(body: unknown): PatchOperation[] {
  const b = body as Record<string, unknown> | null;
  const schemas = b && typeof b === 'object' ? b.schemas : undefined;
  if (
    !Array.isArray(schemas) ||
    !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === SCHEMA.patchOp.toLowerCase())
  ) {
    throw ScimError.badRequest('invalidSyntax', `A PATCH body is a ${SCHEMA.patchOp}.`);
  }
  const operations = ciGet(b!, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > MAX_OPERATIONS) {
    throw ScimError.badRequest('invalidSyntax', 'Operations must be a list of 1..1000 operations.');
  }
  const out: PatchOperation[] = [];
  for (const raw of operations) {
    if (!raw || typeof raw !== 'object') throw ScimError.badRequest('invalidSyntax', 'An operation is an object.');
    const o = raw as Record<string, unknown>;
    const rawOp = ciGet(o, 'op');
    const op = typeof rawOp === 'string' ? rawOp.toLowerCase() : '';
    if (!OPS.has(op)) throw ScimError.badRequest('invalidSyntax', 'op must be add, replace or remove.');
    const path = ciGet(o, 'path');
    const value = ciGet(o, 'value');
    if (path !== undefined && (typeof path !== 'string' || path.trim() === '')) {
      throw ScimError.badRequest('invalidPath', 'path must be a non-empty string.');
    }
    if (path === undefined) {
      if (op === 'remove') throw ScimError.badRequest('noTarget', 'A remove operation needs a path.');
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        throw ScimError.badRequest('invalidValue', 'An operation without path takes an object value.');
      }
      for (const [key, v] of Object.entries(value)) out.push({ op: op as PatchOperation['op'], path: key, value: v });
    } else {
      out.push({ op: op as PatchOperation['op'], path: path.trim(), value });
    }
  }
  return out;
}

/** Applies user operations with `scim-patch` on a copy of the resource (paths canonicalized to its names). */
export function applyUserPatch<T extends Record<string, unknown>>(resource: T, ops: PatchOperation[]): T {
  const operations = ops.map((o) => ({ ...o, path: canonicalUserPath(o.path!) })) as ScimPatchOperation[];
  try {
    return scimPatch(resource as unknown as PatchableResource, operations, {
      mutateDocument: false,
      treatMissingAsAdd: true,
    }) as unknown as T;
  } catch (err) {
    const name = (err as Error).constructor?.name ?? '';
    if (name === 'NoTarget') throw ScimError.badRequest('noTarget', (err as Error).message);
    if (err instanceof ScimError) throw err;
    throw ScimError.badRequest('invalidPath', (err as Error).message ?? 'The patch cannot be applied.');
  }
}

const USER_NAMES: Record<string, string> = {
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
  name: 'name',
  'name.givenname': 'name.givenName',
  'name.familyname': 'name.familyName',
  'name.formatted': 'name.formatted',
  active: 'active',
  emails: 'emails',
  preferredlanguage: 'preferredLanguage',
  locale: 'locale',
  timezone: 'timezone',
};
const ENTERPRISE_KEYS: Record<string, string> = {
  employeenumber: 'employeeNumber',
  costcenter: 'costCenter',
  organization: 'organization',
  division: 'division',
  department: 'department',
};

function canonicalUserPath(path: string): string {
  const lower = path.toLowerCase();
  const enterprise = SCHEMA.enterpriseUser.toLowerCase();
  if (lower === enterprise) return SCHEMA.enterpriseUser;
  if (lower.startsWith(`${enterprise}:`)) {
    const rest = path.slice(enterprise.length + 1);
    const head = rest.split('.')[0].toLowerCase();
    if (head === 'manager') return `${SCHEMA.enterpriseUser}:manager`;
    return `${SCHEMA.enterpriseUser}:${ENTERPRISE_KEYS[head] ?? rest}`;
  }
  const core = `${SCHEMA.user.toLowerCase()}:`;
  const p = lower.startsWith(core) ? path.slice(core.length) : path;
  const bracket = p.indexOf('[');
  const head = bracket >= 0 ? p.slice(0, bracket) : p;
  const canonical = USER_NAMES[head.toLowerCase()];
  if (canonical) return `${canonical}${bracket >= 0 ? p.slice(bracket) : ''}`;
  const top = head.split('.')[0].toLowerCase();
  if (top === 'id' || top === 'meta' || top === 'groups') {
    throw ScimError.badRequest('mutability', `"${head}" is read-only.`);
  }
  throw ScimError.badRequest('invalidPath', `Unknown attribute "${head}".`);
}

/** A value of an attribute name, whatever its case (SCIM attribute names are case-insensitive). */
export function ciGet(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const lower = name.toLowerCase();
  const key = Object.keys(obj).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : obj[key];
}

export { toBoolean };
