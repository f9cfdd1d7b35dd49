import { randomBytes } from 'node:crypto';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, type ScopedRoute, STAFF } from './route';

const base = (org: OrgFixture): string => `/api/v1/organizations/${org.id}/issued-certificates`;

/** An active certificate of this organization's student (fresh per row, so a write never touches another's). */
async function certificate(t: TestApp, org: OrgFixture, key: string): Promise<void> {
  const [course] = await t.db.query(
    `INSERT INTO courses (slug, title, language, level, status) VALUES ($1, 'Cross-tenant', 'en', 'beginner', 'published')
     RETURNING id`,
    [`ct-${randomBytes(6).toString('hex')}`],
  );
  const [row] = await t.db.query(
    `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title)
     VALUES ($1, 'course', $2, $3, 'Cross Tenant', $4, 'Cross-tenant') RETURNING id`,
    [`CT-${randomBytes(6).toString('hex').toUpperCase()}`, org.id, org.people.student.user.id, course.id],
  );
  org.ids[key] = row.id as string;
}

export const certificateRoutes: ScopedRoute[] = [
  { name: 'list issued certificates', method: 'get', path: base, roles: STAFF, ok: 200 },
  { name: 'export issued certificates', method: 'get', path: (o) => `${base(o)}/export`, roles: STAFF, ok: 200 },
  {
    name: 'revoke a certificate',
    method: 'post',
    path: (o) => `${base(o)}/${o.ids.certificateRevoke}/revoke`,
    body: () => ({ reason: 'Cross-tenant check' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => certificate(t, o, 'certificateRevoke'),
  },
  {
    name: 'reissue a certificate',
    method: 'post',
    path: (o) => `${base(o)}/${o.ids.certificateReissue}/reissue`,
    body: () => ({ name: 'Corrected Name', reason: 'Cross-tenant check' }),
    roles: ADMINS,
    ok: 201,
    setup: (t, o) => certificate(t, o, 'certificateReissue'),
  },
];
