import type { OrgRole } from '@/core/auth/tenancy';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';

/**
 * One organization-scoped operation of the table-driven cross-tenant suite. Every area adds its rows; the suite
 * checks each one from another organization, with another organization's token, with a too-low role, with a
 * read-only token (writes), in a suspended organization, and that an allowed role does succeed.
 */
export interface ScopedRoute {
  name: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path for this organization (its id and the ids its setup created). */
  path: (org: OrgFixture) => string;
  body?: (org: OrgFixture) => object;
  /** Roles allowed. */
  roles: readonly OrgRole[];
  /** Whether read-only credentials are refused (defaults from the method). */
  write?: boolean;
  /** Status an allowed role gets (default: any 2xx). */
  ok?: number;
  /** Creates what the path needs in an organization; runs for the tested organization and the suspended one. */
  setup?: (t: TestApp, org: OrgFixture) => Promise<void>;
  /** Send the body as multipart with this file (CSV upload). */
  file?: { field: string; name: string; content: string };
}

export const ALL_ROLES: readonly OrgRole[] = ['owner', 'admin', 'teacher', 'student'];
export const ADMINS: readonly OrgRole[] = ['owner', 'admin'];
export const STAFF: readonly OrgRole[] = ['owner', 'admin', 'teacher'];
