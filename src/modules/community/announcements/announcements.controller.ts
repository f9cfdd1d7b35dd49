import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import { AnnouncementReaderService } from './announcement-reader.service';
import { CurrentAnnouncementsDto, CurrentAnnouncementsQueryDto } from './dto/announcement.dto';

@ApiTags('announcements')
@Controller('announcements')
export class AnnouncementsController {
  constructor(private readonly reader: AnnouncementReaderService) {}

  @Get('current')
  @ApiOperation({
    summary: 'My current announcements',
    description:
      'In the organization `organization_id` (default: the token’s organization, else the active one; 404 when the ' +
      'caller is not a member or a token of another organization is used, 403 `organization_suspended` when it is ' +
      'suspended): platform announcements whose audience includes that organization and the caller’s role there ' +
      '(empty lists mean everyone), plus that organization’s announcements for the caller’s role and cohorts. ' +
      'Without an organization (none active, or the active one left or suspended) only announcements for everyone ' +
      'are listed. Inside their window, not dismissed by the caller; `critical` first, then `warning`, `info`, each ' +
      'by `starts_at` descending; at most 50. Each in the caller’s language, else the other one, with `body_html` ' +
      'rendered from the markdown and sanitized.',
  })
  @ApiOkResponse({ type: CurrentAnnouncementsDto })
  @ApiErrors([403, 'organization_suspended'], 404, 422)
  current(
    @CurrentCredential() credential: Credential,
    @Query() query: CurrentAnnouncementsQueryDto,
  ): Promise<CurrentAnnouncementsDto> {
    return this.reader.current(credential, query.organization_id);
  }

  @Post(':announcement_id/dismiss')
  @HttpCode(204)
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Dismiss an announcement',
    description:
      'It no longer appears in the caller’s current announcements. Idempotent (204 again). 404 when it is not shown ' +
      'to the caller (another organization’s, outside its window, not for the caller’s role, cohorts or ' +
      'organizations; a token only reaches its own organization). 409 `announcement_not_dismissible` for ' +
      '`critical` announcements and those created not dismissible.',
  })
  @ApiNoContentResponse({ description: 'Dismissed' })
  @ApiErrors(404, [409, 'announcement_not_dismissible'])
  async dismiss(
    @CurrentCredential() credential: Credential,
    @Param('announcement_id', UuidPipe) id: string,
  ): Promise<void> {
    await this.reader.dismiss(credential, id.toLowerCase());
  }
}
