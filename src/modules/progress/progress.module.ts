import { Module, type OnModuleInit } from '@nestjs/common';
import { CertificatesModule } from '@/modules/certificates/certificates.module';
import { CatalogService } from '@/modules/courses/catalog.service';
import { CoursesModule } from '@/modules/courses/courses.module';
import { OrganizationsService } from '@/modules/organizations/organizations.service';
import { ProgressController } from './progress.controller';
import {
  EnrollmentsPersonalData,
  LessonCompletionsPersonalData,
  QuizSubmissionsPersonalData,
} from './progress.personal-data';
import { ProgressRepository } from './progress.repository';
import { ProgressService } from './progress.service';

@Module({
  imports: [CoursesModule, CertificatesModule],
  controllers: [ProgressController],
  providers: [
    ProgressRepository,
    ProgressService,
    EnrollmentsPersonalData,
    LessonCompletionsPersonalData,
    QuizSubmissionsPersonalData,
  ],
  exports: [ProgressService],
})
export class ProgressModule implements OnModuleInit {
  constructor(
    private readonly progress: ProgressService,
    private readonly catalog: CatalogService,
    private readonly organizations: OrganizationsService,
  ) {}

  onModuleInit(): void {
    // The catalog shows the caller's enrollment; plan usage counts enrollments.
    this.catalog.useLearnerState(this.progress);
    this.organizations.registerUsageCounter('courses_enrolled', (organizationId) =>
      this.progress.countEnrollments(organizationId),
    );
  }
}
