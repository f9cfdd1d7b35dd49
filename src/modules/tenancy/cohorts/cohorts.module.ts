import { Module } from '@nestjs/common';
import { UsersModule } from '@/modules/identity/users/users.module';
import { CohortsController } from './cohorts.controller';
import { CohortPlacesPersonalData } from './cohorts.personal-data';
import { CohortsRepository } from './cohorts.repository';
import { CohortsService } from './cohorts.service';

@Module({
  imports: [UsersModule],
  controllers: [CohortsController],
  providers: [CohortsRepository, CohortsService, CohortPlacesPersonalData],
  exports: [CohortsService],
})
export class CohortsModule {}
