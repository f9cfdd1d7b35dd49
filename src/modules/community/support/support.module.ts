import { Module } from '@nestjs/common';
import { UsersModule } from '@/modules/identity/users/users.module';
import { AdminSupportController, SupportController } from './support.controller';
import { SupportJobs } from './support.schedules';
import { SupportStaffMessagesPersonalData, SupportTicketsPersonalData } from './support.personal-data';
import { SupportRepository } from './support.repository';
import { SupportService } from './support.service';

/** Support tickets and the staff desk (extensions-v2 19). */
@Module({
  imports: [UsersModule],
  controllers: [SupportController, AdminSupportController],
  providers: [
    SupportRepository,
    SupportService,
    SupportJobs,
    SupportTicketsPersonalData,
    SupportStaffMessagesPersonalData,
  ],
})
export class SupportModule {}
