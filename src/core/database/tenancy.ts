/**
 * The organization predicate of a statement on an organization's table, built in one place.
 *
 * Repositories write raw SQL with positional parameters. The predicate that keeps a statement inside one
 * organization is never written by hand: `orgEq(1, 'c')` returns `c.organization_id = $1` (with a mark the query
 * guard recognizes) for a statement whose first parameter is the organization id, `orgParam(params, id, 'c')`
 * appends the id to a statement's growing parameter list and returns the predicate at its position. The guard
 * (`tenancy-guard.ts`) refuses a statement touching an organization's table without one of these, or without a
 * named exemption from `TENANCY_EXEMPTIONS`, and checks that the parameter at the predicate's position holds an
 * organization id (a uuid), so a predicate pointing at the wrong parameter fails at once.
 */

/** The mark every built predicate starts with; the guard looks for it. A comment: PostgreSQL ignores it. */
export const ORG_MARK = '/*org*/';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function column(alias: string | undefined): string {
  if (alias === undefined) return 'organization_id';
  if (!IDENTIFIER.test(alias)) throw new Error(`Not a table alias: ${alias}`);
  return `${alias}.organization_id`;
}

function position(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`Not a parameter position: ${n}`);
  return n;
}

/** `alias.organization_id = $n`: the statement's parameter `n` (1-based) is the organization id. */
export function orgEq(n: number, alias?: string): string {
  return `${ORG_MARK} ${column(alias)} = $${position(n)}`;
}

/** `alias.organization_id = ANY($n)`: parameter `n` is a list of organization ids (a job over several). */
export function orgAny(n: number, alias?: string): string {
  return `${ORG_MARK} ${column(alias)} = ANY($${position(n)}::uuid[])`;
}

/** Appends `organizationId` to `params` and returns the predicate on it (statements built piece by piece). */
export function orgParam(params: unknown[], organizationId: string, alias?: string): string {
  params.push(organizationId);
  return orgEq(params.length, alias);
}

/**
 * Statements that legitimately touch organizations' tables without one organization's predicate. Each is
 * reviewed (docs/DECISIONS.md, "Tenancy in data access"); a new one is added here, with its reason, or not at all.
 * `files` exempts every statement run from those files (matched against the call's stack); the others are
 * named in the statement itself with `tenancyExempt(name)`.
 */
export const TENANCY_EXEMPTIONS = {
  'person-across-organizations': {
    reason:
      "a person's own rows in every organization they belong to (their memberships, notifications, " +
      'feed of organizations, sign-in choices); keyed by the person, never by a caller-given organization',
  },
  'cross-organization-job': {
    reason:
      'background work over every organization (schedules, sweeps, retention, outbox delivery); no request ' +
      'and no caller-given organization; it reads ids it then writes back by key',
  },
  'by-key-after-scoped-read': {
    reason:
      "a row found through the organization predicate (or read by its key and compared with the caller's " +
      'organization before any use), then read or changed by its primary key or by keys that row carries',
  },
  'sign-in-lookup': {
    reason:
      'a credential or sign-in route found by its secret hash, its domain or its key before any organization is ' +
      'known (API keys, OAuth tokens, SSO domains); the credential names the organization',
  },
  'platform-catalog': {
    reason:
      "the platform's course catalog, authored by platform editors: which organizations a course or path is " +
      'offered to, and course figures over every organization (the average rating)',
  },
  'lti-service-context': {
    reason:
      "an LTI tool's service call (AGS, NRPS) names a context by its id under the tool's own bearer token; the " +
      "organization is the context's, and the same statement reads the tool's deployment there, which must be " +
      'enabled before anything is answered',
  },
  'cross-organization-existence': {
    reason:
      'whether a shared row (an institute, a course, a path, an exam) is used anywhere, answered yes or no only, ' +
      'before it may be changed or deleted',
  },
  'public-by-key': {
    reason:
      'a public page found by an unguessable key (a certificate verification code, a badge assertion id); it ' +
      'shows only what the holder chose to publish',
  },
  'platform-admin': {
    reason: 'platform administrators read and moderate across organizations (platform_admin only)',
  },
  'personal-data': {
    reason:
      "export and erasure of one person's data in every organization (the privacy engine, `*.personal-data.ts`, " +
      'and the export archive that runs their statements)',
    files: /[\\/](?:[^\\/]+\.personal-data|identity[\\/]privacy[\\/]export-archive)\.[jt]s:/,
  },
  'platform-infrastructure': {
    reason:
      'the job queue, the domain-event outbox and metrics: their organization_id labels a row for routing, ' +
      'it is not read on behalf of an organization',
    files: /[\\/](?:src|dist)[\\/]core[\\/](?:queue|events|metrics)[\\/]/,
  },
  'test-fixtures': {
    reason: 'test code arranging and inspecting rows directly (never in the built application)',
    files: /[\\/]test[\\/](?:support|e2e|integration|cross-tenant)[\\/]/,
  },
} as const satisfies Record<string, { reason: string; files?: RegExp }>;

export type TenancyExemption = keyof typeof TENANCY_EXEMPTIONS;

/** Names the reviewed exemption this statement falls under (a comment at its start). */
export function tenancyExempt(name: TenancyExemption): string {
  return `/*tenancy-exempt:${name}*/`;
}
