import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { ReportJobs } from './reports-handlers.jobs';
import { ReportsController } from './reports.controller';
import { ReportsPersonalData } from './reports.personal-data';
import { ReportsRepository } from './reports.repository';
import { ReportLimits, ReportsService } from './reports.service';

/** Asynchronous CSV/XLSX reports of an organization (extensions-v2 15). */
@Module({
  imports: [OrganizationsModule, UsersModule],
  controllers: [ReportsController],
  providers: [
    ReportsRepository,
    ReportsService,
    ReportJobs,
    ReportsPersonalData,
    {
      provide: ReportLimits,
      useFactory: (config: AppConfig) => new ReportLimits(config.reportMaxRows),
      inject: [APP_CONFIG],
    },
  ],
})
export class ReportsModule {}
