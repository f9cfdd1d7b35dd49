import { Global, Module } from '@nestjs/common';
import { CompletionRequirements } from '@/modules/learning/progress';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { MembersModule } from '@/modules/tenancy/members/members.module';
import { EditorExamsController } from './editor-exams.controller';
import { ExamAccess } from './exam-access';
import { ExamAuthoringService } from './exam-authoring.service';
import { ExamJobs } from './exams-handlers.jobs';
import { ExamResults } from './exam-results';
import { ExamSessionsController } from './exam-sessions.controller';
import { ExamSessionsRepository } from './exam-sessions.repository';
import { ExamSessionsService } from './exam-sessions.service';
import { ExamsController } from './exams.controller';
import { ExamSessionsPersonalData, ExamStaffPersonalData } from './exams.personal-data';
import { ExamsRepository } from './exams.repository';
import { ExamsService } from './exams.service';

/**
 * Proctored exams (extensions-v2 section 9). Global for one reason: progress needs exam results to complete a
 * course (9.8) while exams needs progress (is the learner enrolled), so progress injects its port
 * `CompletionRequirements`, provided here, instead of importing this module. Nothing else is exported.
 */
@Global()
@Module({
  imports: [CoursesModule, ProgressModule, CohortsModule, MembersModule],
  controllers: [EditorExamsController, ExamsController, ExamSessionsController],
  providers: [
    ExamsRepository,
    ExamSessionsRepository,
    ExamAccess,
    ExamAuthoringService,
    ExamsService,
    ExamSessionsService,
    ExamJobs,
    ExamResults,
    { provide: CompletionRequirements, useExisting: ExamResults },
    ExamSessionsPersonalData,
    ExamStaffPersonalData,
  ],
  exports: [CompletionRequirements],
})
export class ExamsModule {}
