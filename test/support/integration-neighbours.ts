import type { Provider } from '@nestjs/common';
import { UsersService } from '@/modules/identity/users';
import { UsersRepository } from '@/modules/identity/users/testing';
import { AiUsageFigures, EnrollmentCount, OrganizationsService } from '@/modules/tenancy/organizations';
import { OrganizationsRepository } from '@/modules/tenancy/organizations/testing';
import { outOfScope } from './integration';

/**
 * The neighbours most areas' integration files need beside the area under test (the middle test layer names its
 * providers; these lists keep the common ones in one place).
 */

/** People: the users area's repository and service (names, locales, time zones, erasure marks). */
export const PEOPLE: Provider[] = [UsersRepository, UsersService];

/**
 * Organizations: the organizations area's repository and service, with the figures only its admin view reads (the
 * enrollment count, AI usage) answered by `outOfScope` (an integration file that reaches them fails loudly).
 */
export const ORGANIZATIONS: Provider[] = [
  OrganizationsRepository,
  OrganizationsService,
  { provide: EnrollmentCount, useValue: outOfScope('EnrollmentCount') },
  { provide: AiUsageFigures, useValue: outOfScope('AiUsageFigures') },
];
