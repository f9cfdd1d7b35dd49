import { Global, Module } from '@nestjs/common';
import { CertificatesModule } from '@/modules/learning/certificates/certificates.module';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { LearnerState } from '@/modules/learning/courses';
import { EnrollmentCount } from '@/modules/tenancy/organizations';
import { EnrollmentCountOfProgress } from './enrollment-count';
import { ExamCompletionSubscriber } from './progress.subscribers';
import { ProgressController } from './progress.controller';
import {
  EnrollmentsPersonalData,
  LessonCompletionsPersonalData,
  QuizSubmissionsPersonalData,
} from './progress.personal-data';
import { ProgressRepository } from './progress.repository';
import { ProgressService } from './progress.service';

/**
 * Enrollments, completions and quiz submissions. Global so the areas it depends on find the ports it provides:
 * the course pages' `LearnerState` and the plan usage's `EnrollmentCount`.
 */
@Global()
@Module({
  imports: [CoursesModule, CertificatesModule],
  controllers: [ProgressController],
  providers: [
    ProgressRepository,
    ProgressService,
    ExamCompletionSubscriber,
    EnrollmentsPersonalData,
    LessonCompletionsPersonalData,
    QuizSubmissionsPersonalData,
    { provide: LearnerState, useExisting: ProgressService },
    { provide: EnrollmentCount, useClass: EnrollmentCountOfProgress },
  ],
  exports: [ProgressService, LearnerState, EnrollmentCount],
})
export class ProgressModule {}
