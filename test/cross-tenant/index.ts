import { announcementRoutes } from './announcements.routes';
import { auditRoutes } from './audit.routes';
import { certificateRoutes } from './certificates.routes';
import { cohortRoutes } from './cohorts.routes';
import { examRoutes } from './exams.routes';
import { gamificationRoutes } from './gamification.routes';
import { integrationRoutes } from './integrations.routes';
import { invitationRoutes } from './invitations.routes';
import { learningRoutes } from './learning.routes';
import { ltiRoutes } from './lti.routes';
import { memberImportRoutes } from './member-import.routes';
import { memberRoutes } from './members.routes';
import { organizationRoutes } from './organizations.routes';
import { pathRoutes } from './paths.routes';
import { practiceRoutes } from './practice.routes';
import { reportRoutes } from './reports.routes';
import { privacyRoutes } from './privacy.routes';
import type { ScopedRoute } from './route';
import { statsRoutes } from './stats.routes';
import { socialRoutes } from './social.routes';
import { scimRoutes } from './scim.routes';
import { ssoRoutes } from './sso.routes';
import { tutorRoutes } from './tutor.routes';

/** Every organization-scoped operation. A new area adds its file here. */
export const SCOPED_ROUTES: ScopedRoute[] = [
  ...organizationRoutes,
  ...cohortRoutes,
  ...auditRoutes,
  ...memberRoutes,
  ...memberImportRoutes,
  ...invitationRoutes,
  ...learningRoutes,
  ...certificateRoutes,
  ...pathRoutes,
  ...ssoRoutes,
  ...scimRoutes,
  ...announcementRoutes,
  ...examRoutes,
  ...tutorRoutes,
  ...reportRoutes,
  ...statsRoutes,
  ...privacyRoutes,
  // Before practice: its game question has a 20 s deadline from its setup to its test, and these setups are slow.
  ...ltiRoutes,
  ...practiceRoutes,
  ...gamificationRoutes,
  ...integrationRoutes,
  ...socialRoutes,
];
