/**
 * The organizations area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { AiUsageFigures } from './ai-usage-figures.port';
export { OrganizationDto } from './dto/organization.dto';
export { EnrollmentCount } from './enrollment-count.port';
export { OrganizationsService } from './organizations.service';
export type { Organization } from './organizations.types';
