import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { PlatformRoles } from '@/core/auth/access.decorators';
import { OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { AuditLogService } from './audit-log.service';
import { AuditEntryDto, AuditQueryDto, PlatformAuditEntryDto, PlatformAuditQueryDto } from './dto/audit-entry.dto';

@ApiTags('audit')
@Controller('organizations/:org_id/audit')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'Audit log of the organization',
    description:
      'Who did what in this organization, most recent first (`created_at` then `id`, descending). `action` is an ' +
      'exact action name; `since` and `until` are inclusive bounds (ISO 8601 date-times with `Z` or an offset; ' +
      '`since` after `until` is 422). Entries hold no personal data: the client address appears only as ' +
      '`ip_fingerprint`, a keyed hash, and `metadata` holds ids, counts, roles and stated reasons.',
  })
  @ApiPageResponse(AuditEntryDto)
  @ApiErrors(422)
  list(@Param('org_id') orgId: string, @Query() query: AuditQueryDto): Promise<Page<AuditEntryDto>> {
    return this.audit.list(orgId.toLowerCase(), query);
  }
}

@ApiTags('audit')
@Controller('admin/audit')
@PlatformRoles('platform_admin')
export class PlatformAuditController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @ApiOperation({
    summary: 'The platform audit log (platform admin)',
    description:
      'Every entry, of every organization and of the platform (`organization_id` null), `(created_at, id)` ' +
      'descending. `organization_id` filters one organization, or `none` for platform-level entries; `actor_id` ' +
      'who acted; `action`, `since` and `until` as in the organization log.',
  })
  @ApiPageResponse(PlatformAuditEntryDto)
  @ApiErrors(422)
  list(@Query() query: PlatformAuditQueryDto): Promise<Page<PlatformAuditEntryDto>> {
    return this.audit.listAll(query);
  }
}
