import { ADMINS, ALL_ROLES, type ScopedRoute } from './route';

export const organizationRoutes: ScopedRoute[] = [
  { name: 'read the organization', method: 'get', path: (o) => `/api/v1/organizations/${o.id}`, roles: ALL_ROLES },
  {
    name: 'update the organization',
    method: 'patch',
    path: (o) => `/api/v1/organizations/${o.id}`,
    body: () => ({ brand_color: '#123456' }),
    roles: ADMINS,
  },
  { name: 'plan usage', method: 'get', path: (o) => `/api/v1/organizations/${o.id}/usage`, roles: ADMINS },
];
