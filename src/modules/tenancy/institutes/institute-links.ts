import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import { InstituteLinks } from '@/modules/tenancy/cohorts';
import { InstitutesRepository } from './institutes.repository';

/**
 * The cohorts area's `InstituteLinks` port. Apart from InstitutesService, which depends on the cohorts area (so
 * the cohorts area cannot depend on it in turn).
 */
@Injectable()
export class InstituteLinksOfOrganizations extends InstituteLinks {
  constructor(private readonly institutes: InstitutesRepository) {
    super();
  }

  isLinked(organizationId: string, instituteId: string, tx?: Tx): Promise<boolean> {
    return this.institutes.isLinked(organizationId, instituteId, tx);
  }
}
