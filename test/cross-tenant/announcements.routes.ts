import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, type ScopedRoute } from './route';

const announcements = (org: OrgFixture): string => `/api/v1/organizations/${org.id}/announcements`;

/** An announcement of this organization of its own (each row gets a fresh one, so a DELETE never removes another's). */
async function announcement(org: OrgFixture, key: string): Promise<void> {
  const res = await org.people.owner.agent
    .post(announcements(org))
    .send({ translations: { es: { title: `Aviso ${key}`, body_md: 'Texto' } } });
  if (res.status !== 201) throw new Error(`announcement setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
}

export const announcementRoutes: ScopedRoute[] = [
  {
    name: 'list announcements',
    method: 'get',
    path: (o) => `${announcements(o)}?status=active`,
    roles: ADMINS,
    ok: 200,
  },
  {
    name: 'create an announcement',
    method: 'post',
    path: announcements,
    body: () => ({ translations: { en: { title: 'Cross-tenant', body_md: '' } }, severity: 'warning' }),
    roles: ADMINS,
    ok: 201,
  },
  {
    name: 'update an announcement',
    method: 'patch',
    path: (o) => `${announcements(o)}/${o.ids.announcementUpdate}`,
    body: () => ({ severity: 'critical' }),
    roles: ADMINS,
    ok: 200,
    setup: (_t: TestApp, o) => announcement(o, 'announcementUpdate'),
  },
  {
    name: 'delete an announcement',
    method: 'delete',
    path: (o) => `${announcements(o)}/${o.ids.announcementDelete}`,
    roles: ADMINS,
    ok: 204,
    setup: (_t: TestApp, o) => announcement(o, 'announcementDelete'),
  },
];
