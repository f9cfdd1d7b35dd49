import { Module } from '@nestjs/common';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { TeacherController } from './teacher.controller';
import { TeacherRepository } from './teacher.repository';
import { TeacherService } from './teacher.service';

@Module({
  imports: [CohortsModule, CoursesModule, ProgressModule, UsersModule],
  controllers: [TeacherController],
  providers: [TeacherService, TeacherRepository],
})
export class TeacherModule {}
