import { waitUntil } from '../support/wait';
import { ADMINS, type ScopedRoute } from './route';

const CSV = 'email,role\nnew-person@example.test,student\n';

/** An import that has finished, so its status and report resolve in each organization. */
async function finishedImport(
  t: Parameters<NonNullable<ScopedRoute['setup']>>[0],
  org: Parameters<NonNullable<ScopedRoute['setup']>>[1],
) {
  if (org.ids.import) return;
  const res = await org.people.owner.agent
    .post(`/api/v1/organizations/${org.id}/members/import`)
    .attach('file', Buffer.from(CSV), { filename: 'members.csv', contentType: 'text/csv' })
    .expect(202);
  org.ids.import = res.body.id as string;
  await waitUntil(
    async () =>
      (await t.db.query(`SELECT status FROM member_imports WHERE id = $1`, [org.ids.import]))[0].status === 'completed',
  );
}

export const memberImportRoutes: ScopedRoute[] = [
  {
    name: 'start a member import',
    method: 'post',
    path: (o) => `/api/v1/organizations/${o.id}/members/import`,
    file: { field: 'file', name: 'members.csv', content: CSV },
    roles: ADMINS,
    ok: 202,
  },
  {
    name: 'member import status',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/members/import/${o.ids.import}`,
    roles: ADMINS,
    setup: finishedImport,
  },
  {
    name: 'member import report',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/members/import/${o.ids.import}/report`,
    roles: ADMINS,
    setup: finishedImport,
  },
];
