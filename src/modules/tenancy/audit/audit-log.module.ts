import { Module } from '@nestjs/common';
import { AuditLogController, PlatformAuditController } from './audit-log.controller';
import { AuditEntriesPersonalData } from './audit-log.personal-data';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLogService } from './audit-log.service';

/** The audit list (area `audit`). Entries are written by the core AuditService, which every area calls. */
@Module({
  controllers: [AuditLogController, PlatformAuditController],
  providers: [AuditLogRepository, AuditLogService, AuditEntriesPersonalData],
})
export class AuditLogModule {}
