/**
 * Test support of the organizations area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { OrganizationEntity } from './entities/organization.entity';
export { MembershipsPersonalData } from './organizations.personal-data';
export { OrganizationsRepository } from './organizations.repository';
