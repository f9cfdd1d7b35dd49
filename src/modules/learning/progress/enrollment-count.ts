import { Injectable } from '@nestjs/common';
import { EnrollmentCount } from '@/modules/tenancy/organizations';
import { ProgressRepository } from './progress.repository';

/**
 * The organizations area's `EnrollmentCount` port. On the repository alone: ProgressService depends (through
 * certificates) on OrganizationsService, which injects this port, so the port must not depend on that service.
 */
@Injectable()
export class EnrollmentCountOfProgress extends EnrollmentCount {
  constructor(private readonly progress: ProgressRepository) {
    super();
  }

  countEnrollments(organizationId: string): Promise<number> {
    return this.progress.countInOrganization(organizationId);
  }
}
