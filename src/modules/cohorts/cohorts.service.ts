import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import type { Tx } from '@/core/database/transaction';
import { type CohortRole, type CohortRow, CohortsRepository } from './cohorts.repository';

/**
 * Cohorts of an organization. Other areas (invitations, member import, teacher views, certificates) use this
 * exported service; they never query cohort tables themselves.
 */
@Injectable()
export class CohortsService {
  constructor(
    private readonly cohorts: CohortsRepository,
    private readonly clock: Clock,
  ) {}

  /** The cohort when it belongs to this organization, else null (a cohort of another organization is "not found"). */
  findInOrganization(organizationId: string, cohortId: string, tx?: Tx): Promise<CohortRow | null> {
    return this.cohorts.findById(organizationId, cohortId, tx);
  }

  /** A cohort of the organization by name (case-insensitive), as written in an import file. */
  findByName(organizationId: string, name: string, tx?: Tx): Promise<CohortRow | null> {
    return this.cohorts.findByName(organizationId, name, tx);
  }

  /** The person must already be a member of the organization (the database refuses otherwise). */
  addMember(organizationId: string, cohortId: string, userId: string, role: CohortRole, tx?: Tx): Promise<void> {
    return this.cohorts.addMember(organizationId, cohortId, userId, role, this.clock.now(), tx);
  }

  cohortIdsOf(organizationId: string, userId: string, role?: CohortRole): Promise<string[]> {
    return this.cohorts.cohortIdsOfMember(organizationId, userId, role);
  }

  isTeacherOf(organizationId: string, cohortId: string, userId: string): Promise<boolean> {
    return this.cohorts.isTeacherOf(organizationId, cohortId, userId);
  }

  studentIdsTaughtBy(organizationId: string, teacherId: string): Promise<string[]> {
    return this.cohorts.studentIdsTaughtBy(organizationId, teacherId);
  }
}
