import { organizationRoutes } from './organizations.routes';
import type { ScopedRoute } from './route';

/** Every organization-scoped operation. A new area adds its file here. */
export const SCOPED_ROUTES: ScopedRoute[] = [...organizationRoutes];
