import { normalizeAttributePath } from './scim-filter';
import type { DirectoryAttributes, ScimGroupMemberRow, ScimGroupRow, ScimUserRow } from './scim-directory.repository';
import { SCHEMA } from './scim-schemas';

export type ScimResource = Record<string, unknown> & {
  schemas: string[];
  id: string;
  meta: { resourceType: string; created: string; lastModified: string; location: string };
};

export const ENTERPRISE_KEYS = ['employeeNumber', 'costCenter', 'organization', 'division', 'department'] as const;

export function toScimUser(base: string, row: ScimUserRow): ScimResource {
  const directory: DirectoryAttributes = row.directory ?? {};
  const enterprise = Object.fromEntries(ENTERPRISE_KEYS.filter((k) => directory[k]).map((k) => [k, directory[k]]));
  const displayName = row.display_name ?? row.name;
  const name: Record<string, string> = {};
  if (row.given_name) name.givenName = row.given_name;
  if (row.family_name) name.familyName = row.family_name;
  if (displayName) name.formatted = displayName;
  return {
    schemas: Object.keys(enterprise).length > 0 ? [SCHEMA.user, SCHEMA.enterpriseUser] : [SCHEMA.user],
    id: row.user_id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    userName: row.user_name ?? row.email,
    name,
    ...(displayName ? { displayName } : {}),
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.suspended_at === null,
    preferredLanguage: row.locale,
    locale: row.locale,
    timezone: row.time_zone,
    groups: row.groups.map((g) => ({ value: g.value, display: g.display, $ref: `${base}/Groups/${g.value}` })),
    ...(Object.keys(enterprise).length > 0 ? { [SCHEMA.enterpriseUser]: enterprise } : {}),
    meta: {
      resourceType: 'User',
      created: (row.created_at ?? row.joined_at).toISOString(),
      lastModified: (row.updated_at ?? row.joined_at).toISOString(),
      location: `${base}/Users/${row.user_id}`,
    },
  };
}

export function toScimGroup(base: string, row: ScimGroupRow, members: ScimGroupMemberRow[] | null): ScimResource {
  return {
    schemas: [SCHEMA.group],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    displayName: row.name,
    ...(members
      ? {
          members: members.map((m) => ({
            value: m.user_id,
            ...(m.display ? { display: m.display } : {}),
            $ref: `${base}/Users/${m.user_id}`,
          })),
        }
      : {}),
    meta: {
      resourceType: 'Group',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Groups/${row.id}`,
    },
  };
}

/** The top-level names (lower case) a comma-separated `attributes` / `excludedAttributes` list names. */
export function attributeNames(list: string | undefined): Set<string> | null {
  if (list === undefined || list.trim() === '') return null;
  return new Set(
    list
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .map((a) => {
        const lower = a.toLowerCase();
        if (lower.startsWith(SCHEMA.enterpriseUser.toLowerCase())) return SCHEMA.enterpriseUser.toLowerCase();
        return normalizeAttributePath(a).split('.')[0];
      }),
  );
}

/** RFC 7644 section 3.9: `id`, `schemas` and `meta` are always returned; the rest as the lists say. */
export function project(
  resource: ScimResource,
  attributes: Set<string> | null,
  excluded: Set<string> | null,
): Record<string, unknown> {
  if (!attributes && !excluded) return resource;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    const k = key.toLowerCase();
    const always = k === 'id' || k === 'schemas' || k === 'meta';
    if (!always && attributes && !attributes.has(k)) continue;
    if (!always && excluded?.has(k)) continue;
    out[key] = value;
  }
  return out;
}

/** Whether a query's projection leaves a group's members out (then they are not even read). */
export function membersWanted(attributes: Set<string> | null, excluded: Set<string> | null): boolean {
  if (excluded?.has('members')) return false;
  return !attributes || attributes.has('members');
}
