import { Module } from '@nestjs/common';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { AdminAnnouncementsController } from './admin-announcements.controller';
import { AnnouncementEmails } from './announcement-email';
import { AnnouncementReaderService } from './announcement-reader.service';
import { AnnouncementsController } from './announcements.controller';
import { AnnouncementDismissalsPersonalData, AnnouncementsAuthoredPersonalData } from './announcements.personal-data';
import { AnnouncementsRepository } from './announcements.repository';
import { AnnouncementsService } from './announcements.service';
import { OrganizationAnnouncementsController } from './organization-announcements.controller';

/** Platform and organization announcements (extensions-v2 18). */
@Module({
  imports: [UsersModule, OrganizationsModule, CohortsModule],
  controllers: [AnnouncementsController, AdminAnnouncementsController, OrganizationAnnouncementsController],
  providers: [
    AnnouncementsRepository,
    AnnouncementsService,
    AnnouncementReaderService,
    AnnouncementEmails,
    AnnouncementDismissalsPersonalData,
    AnnouncementsAuthoredPersonalData,
  ],
})
export class AnnouncementsModule {}
