import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { ANNOUNCEMENT_RULES } from './admin-announcements.controller';
import { AnnouncementsService } from './announcements.service';
import {
  AnnouncementDto,
  AnnouncementListQueryDto,
  CreateAnnouncementDto,
  UpdateAnnouncementDto,
} from './dto/announcement.dto';

@ApiTags('announcements')
@Controller('organizations/:org_id/announcements')
@OrgScoped()
@Roles('owner', 'admin')
export class OrganizationAnnouncementsController {
  constructor(private readonly announcements: AnnouncementsService) {}

  @Get()
  @ApiOperation({
    summary: 'The organization’s announcements',
    description:
      'Newest `starts_at` first. `status`: `scheduled` (not started), `active` (started, not ended), `ended`.',
  })
  @ApiPageResponse(AnnouncementDto)
  @ApiErrors(422)
  list(@Param('org_id') orgId: string, @Query() query: AnnouncementListQueryDto): Promise<Page<AnnouncementDto>> {
    return this.announcements.list(orgId.toLowerCase(), query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an organization announcement',
    description:
      `${ANNOUNCEMENT_RULES} The audience names roles (empty: every role) and cohorts of this organization (empty: ` +
      'every member; a cohort of another organization is 404); `organization_ids` must be empty. Audited ' +
      '(`announcement.created`).',
  })
  @ApiCreatedResponse({ type: AnnouncementDto })
  @ApiErrors(404, [409, 'announcement_email_limit_reached'], 422)
  create(
    @Param('org_id') orgId: string,
    @Body() dto: CreateAnnouncementDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<AnnouncementDto> {
    return this.announcements.create(orgId.toLowerCase(), dto, { userId: credential.userId, ip: req.ip });
  }

  @Patch(':announcement_id')
  @ApiOperation({
    summary: 'Update an organization announcement',
    description:
      'Only the fields present are applied (a translation given replaces that language, `null` removes it; each ' +
      'audience list given replaces that list; `ends_at: null` removes the end); the result must follow the rules ' +
      'of creation. `email` cannot change once the announcement was emailed (409 `announcement_already_emailed`). ' +
      'Another organization’s announcement is 404. Audited (`announcement.updated`, with the names of the fields).',
  })
  @ApiOkResponse({ type: AnnouncementDto })
  @ApiErrors(404, [409, 'announcement_already_emailed', 'announcement_email_limit_reached'], 422)
  update(
    @Param('org_id') orgId: string,
    @Param('announcement_id', UuidPipe) id: string,
    @Body() dto: UpdateAnnouncementDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<AnnouncementDto> {
    return this.announcements.update(orgId.toLowerCase(), id.toLowerCase(), dto, {
      userId: credential.userId,
      ip: req.ip,
    });
  }

  @Delete(':announcement_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an organization announcement',
    description:
      'Readers stop seeing it; an email not yet sent is not sent. Another organization’s is 404. Audited ' +
      '(`announcement.deleted`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(
    @Param('org_id') orgId: string,
    @Param('announcement_id', UuidPipe) id: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.announcements.remove(orgId.toLowerCase(), id.toLowerCase(), { userId: credential.userId, ip: req.ip });
  }
}
