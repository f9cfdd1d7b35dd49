import type TestAgent from 'supertest/lib/agent';
import type { OrgRole } from '@/core/auth/tenancy';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { SCOPED_ROUTES } from '../../cross-tenant';
import type { ScopedRoute } from '../../cross-tenant/route';
import { adult, addMember, bearer, createOrganization, type OrgFixture, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ROLE_ORDER: OrgRole[] = ['owner', 'admin', 'teacher', 'student'];

/** The highest role a route does not allow (the most telling "too low"), or null when every role is allowed. */
function tooLow(route: ScopedRoute): OrgRole | null {
  return ROLE_ORDER.find((r) => !route.roles.includes(r)) ?? null;
}

function send(agent: TestAgent, route: ScopedRoute, org: OrgFixture): ReturnType<TestAgent['get']> {
  const req = agent[route.method](route.path(org));
  if (route.file) {
    return req.attach(route.file.field, Buffer.from(route.file.content), {
      filename: route.file.name,
      contentType: 'text/csv',
    });
  }
  return route.body ? req.send(route.body(org)) : req;
}

/**
 * Tenancy is sacred: every organization-scoped operation, from another organization (404), with a token of
 * another organization (404), with a too-low role (403), with a read-only token when it writes (403
 * credential_read_only), in a suspended organization (403 organization_suspended), and, last, an allowed role
 * succeeds (so that no 404 above comes from a broken path).
 */
describe('cross-tenant access to every organization-scoped operation', () => {
  let t: TestApp;
  let a: OrgFixture; // the organization under test
  let s: OrgFixture; // a suspended organization where the caller has every role
  let outsider: TestAgent; // member (owner) of another organization only
  let otherOrgToken: TestAgent; // a member of A (owner there) presenting a token bound to another organization
  let readOnly: TestAgent; // A's owner with a read-only token of A

  async function fixture(label: string): Promise<OrgFixture> {
    const owner = await adult(t);
    const id = await createOrganization(t, owner, `Org ${label}`);
    const people = { owner } as Record<OrgRole, Awaited<ReturnType<typeof adult>>>;
    for (const role of ['admin', 'teacher', 'student'] as OrgRole[]) {
      people[role] = await adult(t);
      await addMember(t, id, people[role].user.id, role);
    }
    return { id, people, ids: {} };
  }

  beforeAll(async () => {
    t = await createTestApp();
    a = await fixture('A');
    s = await fixture('S');
    const bOwner = await adult(t);
    const b = await createOrganization(t, bOwner, 'Org B');
    outsider = bOwner.agent;
    await addMember(t, b, a.people.owner.user.id, 'student');
    otherOrgToken = bearer(t, await personalToken(t, a.people.owner, b, 'write'));
    readOnly = bearer(t, await personalToken(t, a.people.owner, a.id, 'read'));
    for (const route of SCOPED_ROUTES) {
      await route.setup?.(t, a);
      await route.setup?.(t, s);
    }
    await t.app.get(OrganizationsService).setSuspended(s.id, true, 'testing', s.people.owner.user.id, undefined);
  });
  afterAll(() => t.close());

  for (const route of SCOPED_ROUTES) {
    const write = route.write ?? route.method !== 'get';
    describe(`${route.method.toUpperCase()} ${route.name}`, () => {
      it('404 for a member of another organization only', async () => {
        const res = await send(outsider, route, a);
        expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
      });

      it('404 for a token bound to another organization, although its owner is a member here', async () => {
        const res = await send(otherOrgToken, route, a);
        expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
      });

      const low = tooLow(route);
      if (low) {
        it(`403 forbidden for a ${low}`, async () => {
          const res = await send(a.people[low].agent, route, a);
          expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
        });
      }

      if (write) {
        it('403 credential_read_only for a read-only token of this organization', async () => {
          const res = await send(readOnly, route, a);
          expect([res.status, res.body.error?.code]).toEqual([403, 'credential_read_only']);
        });
      }

      it('403 organization_suspended in a suspended organization', async () => {
        const res = await send(s.people[route.roles[0]].agent, route, s);
        expect([res.status, res.body.error?.code]).toEqual([403, 'organization_suspended']);
      });

      it(`an allowed role (${route.roles[route.roles.length - 1]}) succeeds`, async () => {
        const res = await send(a.people[route.roles[route.roles.length - 1]].agent, route, a);
        if (route.ok) expect(res.status).toBe(route.ok);
        else expect(res.status).toBeLessThan(300);
      });
    });
  }
});
