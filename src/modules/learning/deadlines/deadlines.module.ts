import { Module } from '@nestjs/common';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { CalendarFeedController, MyCalendarFeedController } from './calendar.controller';
import { CalendarFeedService } from './calendar-feed.service';
import { DeadlinesController } from './deadlines.controller';
import { CalendarFeedPersonalData, CohortDeadlinesPersonalData } from './deadlines.personal-data';
import { DeadlinesRepository } from './deadlines.repository';
import { DeadlinesService } from './deadlines.service';

/** Cohort deadlines and the personal iCalendar feed (extensions-v2 25.2). */
@Module({
  imports: [CohortsModule, OrganizationsModule],
  controllers: [DeadlinesController, MyCalendarFeedController, CalendarFeedController],
  providers: [
    DeadlinesRepository,
    DeadlinesService,
    CalendarFeedService,
    CalendarFeedPersonalData,
    CohortDeadlinesPersonalData,
  ],
})
export class DeadlinesModule {}
