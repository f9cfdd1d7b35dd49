import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';
import { type ScopedRoute, STAFF } from './route';

const reports = (org: OrgFixture): string => `/api/v1/organizations/${org.id}/reports`;

/** A cohort the fixture's teacher teaches (once per organization). */
export async function teacherCohort(org: OrgFixture): Promise<string> {
  if (org.ids.reportCohort) return org.ids.reportCohort;
  const base = `/api/v1/organizations/${org.id}/cohorts`;
  const cohort = await org.people.owner.agent.post(base).send({ name: 'Report cohort' }).expect(201);
  await org.people.owner.agent
    .post(`${base}/${cohort.body.id}/members`)
    .send({ user_id: org.people.teacher.user.id, role: 'teacher' })
    .expect(201);
  org.ids.reportCohort = cohort.body.id as string;
  return org.ids.reportCohort;
}

/** A finished report requested by the fixture's teacher (the lowest role allowed sees only their own). */
async function teacherReport(org: OrgFixture, key: string): Promise<void> {
  const cohortId = await teacherCohort(org);
  const res = await org.people.teacher.agent
    .post(reports(org))
    .send({ type: 'progress', format: 'csv', filters: { cohort_id: cohortId } });
  if (res.status !== 202) throw new Error(`report setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
  await waitUntil(
    async () => {
      const r = await org.people.teacher.agent.get(`${reports(org)}/${res.body.id}`);
      return r.body.status === 'completed';
    },
    { what: 'report setup' },
  );
}

export const reportRoutes: ScopedRoute[] = [
  { name: 'list reports', method: 'get', path: reports, roles: STAFF, ok: 200 },
  {
    name: 'request a report',
    method: 'post',
    path: reports,
    body: (o) => ({ type: 'progress', format: 'xlsx', filters: { cohort_id: o.ids.reportCohort } }),
    roles: STAFF,
    ok: 202,
    setup: async (_t: TestApp, o) => void (await teacherCohort(o)),
  },
  {
    name: 'a report',
    method: 'get',
    path: (o) => `${reports(o)}/${o.ids.reportGet}`,
    roles: STAFF,
    ok: 200,
    setup: (_t: TestApp, o) => teacherReport(o, 'reportGet'),
  },
  {
    name: 'download a report',
    method: 'get',
    path: (o) => `${reports(o)}/${o.ids.reportGet}/download`,
    roles: STAFF,
    ok: 200,
  },
  {
    name: 'delete a report',
    method: 'delete',
    path: (o) => `${reports(o)}/${o.ids.reportDelete}`,
    roles: STAFF,
    ok: 204,
    setup: (_t: TestApp, o) => teacherReport(o, 'reportDelete'),
  },
];
