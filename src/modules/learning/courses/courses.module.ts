import { Module } from '@nestjs/common';
import { MembersModule } from '@/modules/tenancy/members/members.module';
import { CatalogService } from './catalog.service';
import { CoursesController } from './courses.controller';
import { CourseRatingsPersonalData } from './courses.personal-data';
import { CoursesRepository } from './courses.repository';
import { CoursesService } from './courses.service';
import { MyRatingsController, RatingsController } from './ratings.controller';
import { RatingsRepository } from './ratings.repository';
import { RatingsService } from './ratings.service';
import { LessonPassagesService } from './lesson-passages.service';
import { FullTextPassageRetriever, PassageRetriever } from './passage-retrieval';
import { LtiModule } from '@/modules/integrations/lti/lti.module';

@Module({
  imports: [MembersModule, LtiModule],
  controllers: [CoursesController, RatingsController, MyRatingsController],
  providers: [
    CoursesRepository,
    CatalogService,
    CoursesService,
    CourseRatingsPersonalData,
    RatingsRepository,
    RatingsService,
    // Retrieval for the tutor; a vector store would be bound here instead.
    { provide: PassageRetriever, useClass: FullTextPassageRetriever },
    LessonPassagesService,
  ],
  exports: [CatalogService, LessonPassagesService],
})
export class CoursesModule {}
