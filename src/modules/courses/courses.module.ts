import { Module } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import { CoursesController } from './courses.controller';
import { CourseRatingsPersonalData } from './courses.personal-data';
import { CoursesRepository } from './courses.repository';
import { CoursesService } from './courses.service';
import { LessonPassagesService } from './lesson-passages.service';
import { FullTextPassageRetriever, PassageRetriever } from './passage-retrieval';

@Module({
  controllers: [CoursesController],
  providers: [
    CoursesRepository,
    CatalogService,
    CoursesService,
    CourseRatingsPersonalData,
    // Retrieval for the tutor; a vector store would be bound here instead.
    { provide: PassageRetriever, useClass: FullTextPassageRetriever },
    LessonPassagesService,
  ],
  exports: [CatalogService, LessonPassagesService],
})
export class CoursesModule {}
