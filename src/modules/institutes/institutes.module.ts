import { Module, type OnModuleInit } from '@nestjs/common';
import { CohortsModule } from '@/modules/cohorts/cohorts.module';
import { CohortsService } from '@/modules/cohorts/cohorts.service';
import { InstitutesController } from './institutes.controller';
import { InstitutesRepository } from './institutes.repository';
import { InstitutesService } from './institutes.service';

/** Institutes and their linkage to organizations; part of the cohorts area (tag `cohorts`). */
@Module({
  imports: [CohortsModule],
  controllers: [InstitutesController],
  providers: [InstitutesRepository, InstitutesService],
  exports: [InstitutesService],
})
export class InstitutesModule implements OnModuleInit {
  constructor(
    private readonly cohorts: CohortsService,
    private readonly institutes: InstitutesService,
  ) {}

  onModuleInit(): void {
    // A cohort may only name an institute linked to its organization; the rule lives here.
    this.cohorts.useInstituteLinks((organizationId, instituteId, tx) =>
      this.institutes.isLinked(organizationId, instituteId, tx),
    );
  }
}
