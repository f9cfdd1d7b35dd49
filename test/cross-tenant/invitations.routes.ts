import { InvitationsService } from '@/modules/tenancy/invitations';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, type ScopedRoute } from './route';

let addresses = 0;
const address = (): string => `ct-invitee.${process.pid}.${++addresses}@example.test`;

/** A pending invitation of this organization of its own, so the DELETE row always has one to revoke. */
async function invitation(t: TestApp, org: OrgFixture, key: string): Promise<void> {
  const created = await t.app
    .get(InvitationsService)
    .invite(org.id, { email: address(), role: 'student', cohortId: null }, { userId: org.people.owner.user.id });
  org.ids[key] = created.id;
}

export const invitationRoutes: ScopedRoute[] = [
  {
    name: 'invite a person',
    method: 'post',
    path: (o) => `/api/v1/organizations/${o.id}/members/invite`,
    body: () => ({ email: address(), role: 'student' }),
    roles: ADMINS,
    ok: 201,
  },
  {
    name: 'list invitations',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/invitations`,
    roles: ADMINS,
    ok: 200,
  },
  {
    name: 'revoke an invitation',
    method: 'delete',
    path: (o) => `/api/v1/organizations/${o.id}/invitations/${o.ids.invitation}`,
    roles: ADMINS,
    ok: 204,
    setup: (t, o) => invitation(t, o, 'invitation'),
  },
];
