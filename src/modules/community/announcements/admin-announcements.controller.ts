import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { AnnouncementsService } from './announcements.service';
import {
  AnnouncementDto,
  AnnouncementListQueryDto,
  CreateAnnouncementDto,
  UpdateAnnouncementDto,
} from './dto/announcement.dto';

/** Platform announcements have no organization. */
const PLATFORM = null;

export const ANNOUNCEMENT_RULES =
  'At least one translation (`es`, `en`: title 1..120, markdown body up to 2000); `ends_at` later than ' +
  '`starts_at` (default now); `critical` is never dismissible (`dismissible: true` with it is 422). `email: true` ' +
  'sends the announcement once at `starts_at` to its audience: `critical` ones to everyone, others only to people ' +
  'whose latest `product_updates_email` consent is granted; kind `announcement`, with `List-Unsubscribe` ' +
  '(`type=all`) and `List-Unsubscribe-Post`, except `critical` ones: service notices, with no unsubscribe link or ' +
  'header. An organization emails at most 3 announcements per UTC day (the day each goes out; 409 ' +
  '`announcement_email_limit_reached`).';

@ApiTags('announcements')
@Controller('admin/announcements')
@PlatformRoles('platform_admin')
export class AdminAnnouncementsController {
  constructor(private readonly announcements: AnnouncementsService) {}

  @Get()
  @ApiOperation({
    summary: 'Platform announcements (platform admin)',
    description:
      'Newest `starts_at` first. `status`: `scheduled` (not started), `active` (started, not ended), `ended`.',
  })
  @ApiPageResponse(AnnouncementDto)
  @ApiErrors(422)
  list(@Query() query: AnnouncementListQueryDto): Promise<Page<AnnouncementDto>> {
    return this.announcements.list(PLATFORM, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a platform announcement (platform admin)',
    description:
      `${ANNOUNCEMENT_RULES} The audience names roles (empty: every role) and organizations (empty: every ` +
      'organization and people in none; unknown ids are 422); `cohort_ids` must be empty. Audited ' +
      '(`announcement.created`).',
  })
  @ApiCreatedResponse({ type: AnnouncementDto })
  @ApiErrors(422)
  create(
    @Body() dto: CreateAnnouncementDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<AnnouncementDto> {
    return this.announcements.create(PLATFORM, dto, { userId: credential.userId, ip: req.ip });
  }

  @Get(':announcement_id')
  @ApiOperation({ summary: 'A platform announcement (platform admin)', description: 'An organization’s is 404.' })
  @ApiOkResponse({ type: AnnouncementDto })
  @ApiErrors(404)
  get(@Param('announcement_id', UuidPipe) id: string): Promise<AnnouncementDto> {
    return this.announcements.get(PLATFORM, id.toLowerCase());
  }

  @Patch(':announcement_id')
  @ApiOperation({
    summary: 'Update a platform announcement (platform admin)',
    description:
      'Only the fields present are applied (a translation given replaces that language, `null` removes it; each ' +
      'audience list given replaces that list; `ends_at: null` removes the end); the result must follow the rules ' +
      'of creation. `email` cannot change once the announcement was emailed (409 `announcement_already_emailed`); ' +
      'turning it on, or moving `starts_at` before the email went, schedules it for the (new) start. Audited ' +
      '(`announcement.updated`, with the names of the fields).',
  })
  @ApiOkResponse({ type: AnnouncementDto })
  @ApiErrors(404, [409, 'announcement_already_emailed'], 422)
  update(
    @Param('announcement_id', UuidPipe) id: string,
    @Body() dto: UpdateAnnouncementDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<AnnouncementDto> {
    return this.announcements.update(PLATFORM, id.toLowerCase(), dto, { userId: credential.userId, ip: req.ip });
  }

  @Delete(':announcement_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a platform announcement (platform admin)',
    description: 'Readers stop seeing it; an email not yet sent is not sent. Audited (`announcement.deleted`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(
    @Param('announcement_id', UuidPipe) id: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.announcements.remove(PLATFORM, id.toLowerCase(), { userId: credential.userId, ip: req.ip });
  }
}
