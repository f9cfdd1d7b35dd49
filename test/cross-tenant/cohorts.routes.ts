import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, type ScopedRoute, STAFF } from './route';

const cohorts = (org: OrgFixture): string => `/api/v1/organizations/${org.id}/cohorts`;

/** A cohort of this organization of its own (each row gets a fresh one, so a DELETE never removes another's). */
async function cohort(org: OrgFixture, key: string): Promise<void> {
  const res = await org.people.owner.agent.post(cohorts(org)).send({ name: `Cohort ${key}` });
  if (res.status !== 201) throw new Error(`cohort setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
}

export const cohortRoutes: ScopedRoute[] = [
  { name: 'list cohorts', method: 'get', path: cohorts, roles: STAFF, ok: 200 },
  {
    name: 'create a cohort',
    method: 'post',
    path: cohorts,
    body: () => ({ name: 'Cross-tenant cohort' }),
    roles: ADMINS,
    ok: 201,
  },
  {
    name: 'read a cohort',
    method: 'get',
    path: (o) => `${cohorts(o)}/${o.ids.cohortRead}`,
    roles: ADMINS,
    ok: 200,
    setup: (_t: TestApp, o) => cohort(o, 'cohortRead'),
  },
  {
    name: 'update a cohort',
    method: 'patch',
    path: (o) => `${cohorts(o)}/${o.ids.cohortUpdate}`,
    body: () => ({ name: 'Renamed', starts_on: '2026-09-01' }),
    roles: ADMINS,
    ok: 200,
    setup: (_t: TestApp, o) => cohort(o, 'cohortUpdate'),
  },
  {
    name: 'delete a cohort',
    method: 'delete',
    path: (o) => `${cohorts(o)}/${o.ids.cohortDelete}`,
    roles: ADMINS,
    ok: 204,
    setup: (_t: TestApp, o) => cohort(o, 'cohortDelete'),
  },
  {
    name: 'add a cohort member',
    method: 'post',
    path: (o) => `${cohorts(o)}/${o.ids.cohortMemberAdd}/members`,
    body: (o) => ({ user_id: o.people.student.user.id, role: 'student' }),
    roles: ADMINS,
    ok: 201,
    setup: (_t: TestApp, o) => cohort(o, 'cohortMemberAdd'),
  },
  {
    name: 'remove a cohort member',
    method: 'delete',
    path: (o) => `${cohorts(o)}/${o.ids.cohortMemberRemove}/members/${o.people.student.user.id}`,
    roles: ADMINS,
    ok: 204,
    setup: async (_t: TestApp, o) => {
      await cohort(o, 'cohortMemberRemove');
      const res = await o.people.owner.agent
        .post(`${cohorts(o)}/${o.ids.cohortMemberRemove}/members`)
        .send({ user_id: o.people.student.user.id, role: 'student' });
      if (res.status !== 201) throw new Error(`member setup failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
  },
];
