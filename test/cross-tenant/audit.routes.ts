import { ADMINS, type ScopedRoute } from './route';

export const auditRoutes: ScopedRoute[] = [
  {
    name: 'list the audit log',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/audit?action=cohort.created&limit=10`,
    roles: ADMINS,
    ok: 200,
  },
];
