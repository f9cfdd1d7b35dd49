import { Module } from '@nestjs/common';
import { AdminContactRequestsController, PublicController } from './public.controller';
import { PublicJobs } from './public.schedules';
import { ContactRequestsPersonalData } from './public.personal-data';
import { PublicRepository } from './public.repository';
import { PublicService } from './public.service';

/** The public site (extensions-v2 20): forms and the public catalog, no session. */
@Module({
  controllers: [PublicController, AdminContactRequestsController],
  providers: [PublicRepository, PublicService, PublicJobs, ContactRequestsPersonalData],
})
export class PublicModule {}
