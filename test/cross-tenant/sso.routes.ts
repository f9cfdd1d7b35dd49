import { SsoAdminService } from '@/modules/identity/sso';
import { stepUpByEmail } from '../support/auth';
import { CraftedOidcPeer } from '../support/oidc-provider';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, type ScopedRoute } from './route';

let domains = 0;
const domain = (): string => `ct-${process.pid}-${++domains}.example`;

/** The changes need a recent step-up: the allowed role (admin) confirms once per organization. */
async function stepUp(t: TestApp, org: OrgFixture): Promise<void> {
  if (org.ids.ssoStepUp) return;
  await stepUpByEmail(t, org.people.admin);
  org.ids.ssoStepUp = 'done';
}

/** One identity provider for the connection-test row (its discovery must answer); left to exit with the process. */
let peer: Promise<CraftedOidcPeer> | undefined;
function testPeer(): Promise<CraftedOidcPeer> {
  peer ??= CraftedOidcPeer.start().then((p) => {
    p.unref();
    return p;
  });
  return peer;
}

async function connection(t: TestApp, org: OrgFixture, key: string, issuer = 'https://idp.example.org'): Promise<void> {
  const created = await t.app
    .get(SsoAdminService)
    .createConnection(
      org.id,
      { name: key, issuer, client_id: 'ct-client', client_secret: 'ct-secret', enabled: true },
      { userId: org.people.owner.user.id, ip: undefined },
    );
  org.ids[key] = created.id;
}

async function ssoDomain(t: TestApp, org: OrgFixture, key: string, verified: boolean): Promise<void> {
  const created = await t.app
    .get(SsoAdminService)
    .addDomain(org.id, domain(), { userId: org.people.owner.user.id, ip: undefined });
  // Verified directly: the lookup itself is the SSO suite's business (against its own DNS server).
  if (verified)
    await t.db.query(`UPDATE sso_domains SET status = 'verified', verified_at = now() WHERE id = $1`, [created.id]);
  org.ids[key] = created.id;
}

export const ssoRoutes: ScopedRoute[] = [
  {
    name: 'list SSO connections',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/sso/connections`,
    roles: ADMINS,
    ok: 200,
  },
  {
    name: 'add an SSO connection',
    method: 'post',
    path: (o) => `/api/v1/organizations/${o.id}/sso/connections`,
    body: () => ({ name: 'CT', issuer: 'https://idp.example.org', client_id: 'c', client_secret: 's' }),
    roles: ADMINS,
    ok: 201,
    setup: stepUp,
  },
  {
    name: 'change an SSO connection',
    method: 'patch',
    path: (o) => `/api/v1/organizations/${o.id}/sso/connections/${o.ids.ssoPatchConnection}`,
    body: () => ({ name: 'Renamed' }),
    roles: ADMINS,
    ok: 200,
    setup: async (t, o) => {
      await connection(t, o, 'ssoPatchConnection');
      await stepUp(t, o);
    },
  },
  {
    name: 'remove an SSO connection',
    method: 'delete',
    path: (o) => `/api/v1/organizations/${o.id}/sso/connections/${o.ids.ssoDeleteConnection}`,
    roles: ADMINS,
    ok: 204,
    setup: async (t, o) => {
      await connection(t, o, 'ssoDeleteConnection');
      await stepUp(t, o);
    },
  },
  {
    name: 'test an SSO connection',
    method: 'post',
    path: (o) => `/api/v1/organizations/${o.id}/sso/connections/${o.ids.ssoTestConnection}/test`,
    roles: ADMINS,
    ok: 200,
    setup: async (t, o) => connection(t, o, 'ssoTestConnection', (await testPeer()).issuer),
  },
  {
    name: 'list SSO domains',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/sso/domains`,
    roles: ADMINS,
    ok: 200,
  },
  {
    name: 'claim an SSO domain',
    method: 'post',
    path: (o) => `/api/v1/organizations/${o.id}/sso/domains`,
    body: () => ({ domain: domain() }),
    roles: ADMINS,
    ok: 201,
    setup: stepUp,
  },
  {
    name: 'verify an SSO domain',
    method: 'post',
    path: (o) => `/api/v1/organizations/${o.id}/sso/domains/${o.ids.ssoVerifyDomain}/verify`,
    roles: ADMINS,
    ok: 200,
    setup: async (t, o) => {
      await ssoDomain(t, o, 'ssoVerifyDomain', true);
      await stepUp(t, o);
    },
  },
  {
    name: 'enforce SSO for a domain',
    method: 'patch',
    path: (o) => `/api/v1/organizations/${o.id}/sso/domains/${o.ids.ssoEnforceDomain}`,
    body: () => ({ enforced: true }),
    roles: ADMINS,
    ok: 200,
    setup: async (t, o) => {
      await ssoDomain(t, o, 'ssoEnforceDomain', true);
      await stepUp(t, o);
    },
  },
  {
    name: 'release an SSO domain',
    method: 'delete',
    path: (o) => `/api/v1/organizations/${o.id}/sso/domains/${o.ids.ssoDeleteDomain}`,
    roles: ADMINS,
    ok: 204,
    setup: async (t, o) => {
      await ssoDomain(t, o, 'ssoDeleteDomain', false);
      await stepUp(t, o);
    },
  },
];
