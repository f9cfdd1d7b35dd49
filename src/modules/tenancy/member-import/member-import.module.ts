import { Module } from '@nestjs/common';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { InvitationsModule } from '@/modules/tenancy/invitations/invitations.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { MemberImportController } from './member-import.controller';
import { ImportedRowsPersonalData, MemberImportsPersonalData } from './member-import.personal-data';
import { MemberImportProcessor } from './member-import-handlers.jobs';
import { MemberImportRepository } from './member-import.repository';
import { MemberImportService } from './member-import.service';

@Module({
  imports: [UsersModule, CohortsModule, InvitationsModule],
  controllers: [MemberImportController],
  providers: [
    MemberImportRepository,
    MemberImportService,
    MemberImportProcessor,
    MemberImportsPersonalData,
    ImportedRowsPersonalData,
  ],
})
export class MemberImportModule {}
