import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, ALL_ROLES, type ScopedRoute, STAFF } from './route';

const members = (org: OrgFixture): string => `/api/v1/organizations/${org.id}/members`;

let people = 0;

/** A student of this organization of its own (each row gets a fresh one, so a DELETE never removes another's). */
async function member(t: TestApp, org: OrgFixture, key: string): Promise<void> {
  const { user } = await t.app.get(UsersService).findOrCreate(`ct-member.${t.suffix}.${++people}@example.test`, 'es');
  await t.app.get(OrganizationsService).addMember(org.id, user.id, 'student', null);
  org.ids[key] = user.id;
}

export const memberRoutes: ScopedRoute[] = [
  { name: 'list members', method: 'get', path: members, roles: STAFF, ok: 200 },
  {
    name: "change a member's role",
    method: 'patch',
    path: (o) => `${members(o)}/${o.ids.memberRole}`,
    body: () => ({ role: 'teacher' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => member(t, o, 'memberRole'),
  },
  {
    name: 'remove a member',
    method: 'delete',
    path: (o) => `${members(o)}/${o.ids.memberRemove}`,
    roles: ADMINS,
    ok: 204,
    setup: (t, o) => member(t, o, 'memberRemove'),
  },
  {
    name: "a colleague's public profile",
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/profiles/${o.people.owner.user.username as string}`,
    roles: ALL_ROLES,
    ok: 200,
    setup: async (t, o) => {
      await t.app.get(UsersService).updateProfile(o.people.owner.user.id, { public_profile: true });
    },
  },
];
