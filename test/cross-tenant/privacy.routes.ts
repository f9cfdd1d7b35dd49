import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { stepUpByEmail } from '../support/auth';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, type ScopedRoute } from './route';

const member = (org: OrgFixture, key: string): string => `/api/v1/organizations/${org.id}/members/${org.ids[key]}`;

let people = 0;

/**
 * A member of this organization of its own (a minor when asked, with this organization's attestation when asked),
 * and the step-up the allowed role (admin) needs, once per organization.
 */
async function privacyMember(
  t: TestApp,
  org: OrgFixture,
  key: string,
  options: { minor?: boolean; attested?: boolean } = {},
): Promise<void> {
  const users = t.app.get(UsersService);
  const { user } = await users.findOrCreate(`ct-privacy.${t.suffix}.${++people}@example.test`, 'es');
  await t.app.get(OrganizationsService).addMember(org.id, user.id, 'student', null);
  if (options.minor) await users.setAgeBracket(user.id, 'under_18', undefined);
  if (options.attested) {
    await t.db.query(
      `INSERT INTO guardian_attestations (organization_id, user_id, reason, attested_at) VALUES ($1, $2, 'Forms', now())`,
      [org.id, user.id],
    );
  }
  org.ids[key] = user.id;
  if (!org.ids.privacyStepUp) {
    await stepUpByEmail(t, org.people.admin);
    org.ids.privacyStepUp = 'done';
  }
}

export const privacyRoutes: ScopedRoute[] = [
  {
    name: "set a member's age bracket",
    method: 'put',
    path: (o) => `${member(o, 'privacyBracket')}/age-bracket`,
    body: () => ({ age_bracket: 'under_18' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => privacyMember(t, o, 'privacyBracket'),
  },
  {
    name: "attest a minor member's guardian consent",
    method: 'post',
    path: (o) => `${member(o, 'privacyAttest')}/guardian-consent`,
    body: () => ({ reason: 'Signed forms on file' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => privacyMember(t, o, 'privacyAttest', { minor: true }),
  },
  {
    name: 'withdraw the attestation',
    method: 'delete',
    path: (o) => `${member(o, 'privacyWithdraw')}/guardian-consent`,
    roles: ADMINS,
    ok: 204,
    setup: (t, o) => privacyMember(t, o, 'privacyWithdraw', { minor: true, attested: true }),
  },
];
