import { Module } from '@nestjs/common';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { LearningActivitySubscriber } from './stats.subscribers';
import { OrganizationStatsController, StatsController } from './stats.controller';
import { LearningActivityPersonalData } from './stats.personal-data';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';
import { LtiModule } from '@/modules/integrations/lti/lti.module';

/** Statistics (extensions-v2 14) and the hourly learning-activity aggregate they read. */
@Module({
  imports: [OrganizationsModule, UsersModule, LtiModule],
  controllers: [StatsController, OrganizationStatsController],
  providers: [StatsRepository, StatsService, LearningActivitySubscriber, LearningActivityPersonalData],
})
export class StatsModule {}
