import { auditRoutes } from './audit.routes';
import { cohortRoutes } from './cohorts.routes';
import { invitationRoutes } from './invitations.routes';
import { memberImportRoutes } from './member-import.routes';
import { memberRoutes } from './members.routes';
import { organizationRoutes } from './organizations.routes';
import type { ScopedRoute } from './route';

/** Every organization-scoped operation. A new area adds its file here. */
export const SCOPED_ROUTES: ScopedRoute[] = [
  ...organizationRoutes,
  ...cohortRoutes,
  ...auditRoutes,
  ...memberRoutes,
  ...memberImportRoutes,
  ...invitationRoutes,
];
