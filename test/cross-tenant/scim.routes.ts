import { ScimTokensService } from '@/modules/tenancy/scim';
import { stepUpByEmail } from '../support/auth';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, type ScopedRoute } from './route';

/** Token creation and revocation need a recent step-up: the allowed role (admin) confirms once per organization. */
async function stepUp(t: TestApp, org: OrgFixture): Promise<void> {
  if (org.ids.scimStepUp) return;
  await stepUpByEmail(t, org.people.admin);
  org.ids.scimStepUp = 'done';
}

/** The SCIM tokens and activity routes under /api/v1 (the /scim/v2 protocol has its own suite: test/scim.e2e-spec.ts). */
export const scimRoutes: ScopedRoute[] = [
  {
    name: 'list SCIM tokens',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/scim/tokens`,
    roles: ADMINS,
    ok: 200,
  },
  {
    name: 'create a SCIM token',
    method: 'post',
    path: (o) => `/api/v1/organizations/${o.id}/scim/tokens`,
    body: () => ({ description: 'CT directory' }),
    roles: ADMINS,
    ok: 201,
    setup: stepUp,
  },
  {
    name: 'revoke a SCIM token',
    method: 'delete',
    path: (o) => `/api/v1/organizations/${o.id}/scim/tokens/${o.ids.scimToken}`,
    roles: ADMINS,
    ok: 204,
    setup: async (t, o) => {
      const created = await t.app
        .get(ScimTokensService)
        .create(
          { organizationId: o.id, userId: o.people.owner.user.id, role: 'owner' },
          { description: 'CT revoke' },
          undefined,
        );
      o.ids.scimToken = created.id;
      await stepUp(t, o);
    },
  },
  {
    name: 'read the SCIM activity',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/scim/activity`,
    roles: ADMINS,
    ok: 200,
  },
];
