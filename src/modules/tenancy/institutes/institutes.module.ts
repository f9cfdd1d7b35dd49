import { Global, Module } from '@nestjs/common';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { InstituteLinks } from '@/modules/tenancy/cohorts';
import { InstituteLinksOfOrganizations } from './institute-links';
import { InstitutesController } from './institutes.controller';
import { InstitutesRepository } from './institutes.repository';
import { InstitutesService } from './institutes.service';

/**
 * Institutes and their linkage to organizations; part of the cohorts area (tag `cohorts`). Global so the cohorts
 * area finds the `InstituteLinks` port this area provides (a cohort may only name a linked institute).
 */
@Global()
@Module({
  imports: [CohortsModule],
  controllers: [InstitutesController],
  providers: [
    InstitutesRepository,
    InstitutesService,
    { provide: InstituteLinks, useClass: InstituteLinksOfOrganizations },
  ],
  exports: [InstitutesService, InstituteLinks],
})
export class InstitutesModule {}
