import type TestAgent from 'supertest/lib/agent';
import type { OrgRole } from '@/core/auth/tenancy';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { signIn, type SignedIn, stepUpByEmail } from './auth';
import type { TestApp } from './test-app';

/** A signed-in adult (onboarding done), able to create organizations and tokens. */
export async function adult(t: TestApp, email?: string): Promise<SignedIn> {
  const s = await signIn(t, email);
  await s.agent
    .put('/api/v1/me/onboarding')
    .send({ name: 'Test Person', locale: 'es', adult_confirmed: true })
    .expect(200);
  return s;
}

export async function createOrganization(_t: TestApp, owner: SignedIn, name = 'Test Organization'): Promise<string> {
  const res = await owner.agent.post('/api/v1/organizations').send({ name }).expect(201);
  return res.body.organization.id as string;
}

/** Adds a person directly (fixtures only: the invitation flow has its own tests). */
export async function addMember(t: TestApp, organizationId: string, userId: string, role: OrgRole): Promise<void> {
  await t.app.get(OrganizationsService).addMember(organizationId, userId, role, null);
}

/** A personal access token of this person for this organization. */
export async function personalToken(
  t: TestApp,
  s: SignedIn,
  organizationId: string,
  access: 'read' | 'write',
): Promise<string> {
  await stepUpByEmail(t, s);
  const res = await s.agent
    .post('/api/v1/me/api-keys')
    .send({ name: `${access} token`, organization_id: organizationId, access, expires_in_days: 30 })
    .expect(201);
  return res.body.token as string;
}

/** A client that presents a bearer token (and no cookies). */
export function bearer(t: TestApp, token: string): TestAgent {
  return t.client().set('Authorization', `Bearer ${token}`);
}

export interface OrgFixture {
  id: string;
  people: Record<OrgRole, SignedIn>;
  /** Ids created by route setups, by name. */
  ids: Record<string, string>;
}
