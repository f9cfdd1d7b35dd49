import { Module } from '@nestjs/common';
import { CertificatesModule } from '@/modules/learning/certificates/certificates.module';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { EditorPathsController } from './editor-paths.controller';
import { PathsController } from './paths.controller';
import {
  AuthoredPathsPersonalData,
  CapstoneSubmissionsPersonalData,
  ProgramCompletionsPersonalData,
} from './paths.personal-data';
import { PathsRepository } from './paths.repository';
import { PathsService } from './paths.service';
import { ProgramsRepository } from './programs.repository';
import { ProgramsService } from './programs.service';

@Module({
  imports: [CertificatesModule, CohortsModule, CoursesModule, ProgressModule, UsersModule],
  controllers: [EditorPathsController, PathsController],
  providers: [
    PathsRepository,
    PathsService,
    ProgramsRepository,
    ProgramsService,
    CapstoneSubmissionsPersonalData,
    ProgramCompletionsPersonalData,
    AuthoredPathsPersonalData,
  ],
  exports: [PathsService],
})
export class PathsModule {}
