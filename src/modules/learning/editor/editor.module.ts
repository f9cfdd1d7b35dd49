import { Module } from '@nestjs/common';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { LtiModule } from '@/modules/integrations/lti/lti.module';
import { EditorController } from './editor.controller';
import { AuthoredCoursesPersonalData } from './editor.personal-data';
import { EditorRepository } from './editor.repository';
import { EditorService } from './editor.service';
import { SeoController } from './seo/seo.controller';
import { SeoService } from './seo/seo.service';

@Module({
  imports: [CoursesModule, ProgressModule, LtiModule],
  controllers: [EditorController, SeoController],
  providers: [EditorRepository, EditorService, SeoService, AuthoredCoursesPersonalData],
  exports: [EditorService],
})
export class EditorModule {}
