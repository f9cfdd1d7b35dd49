import { Module } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import { CoursesController } from './courses.controller';
import { CourseRatingsPersonalData } from './courses.personal-data';
import { CoursesRepository } from './courses.repository';
import { CoursesService } from './courses.service';

@Module({
  controllers: [CoursesController],
  providers: [CoursesRepository, CatalogService, CoursesService, CourseRatingsPersonalData],
  exports: [CatalogService],
})
export class CoursesModule {}
