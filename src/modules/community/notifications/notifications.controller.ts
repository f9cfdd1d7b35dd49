import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import {
  ChannelPreferenceDto,
  NoBodyDto,
  NotificationDto,
  NotificationListQueryDto,
  NotificationPreferencesDto,
  ReadAllDto,
  UnreadCountDto,
  UpdatedDto,
  UpdatePreferencesDto,
} from './dto/notification.dto';
import { NotificationsService } from './notifications.service';

const SCOPE =
  'A bearer token sees the notifications of its organization and those of no organization; a browser session all.';

@ApiTags('notifications')
@Controller('notifications')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get()
  @ApiOperation({
    summary: 'My notifications',
    description: `Most recent first; \`unread\` and \`category\` filter. Kept 180 days. ${SCOPE}`,
  })
  @ApiPageResponse(NotificationDto)
  @ApiErrors(422)
  list(
    @CurrentCredential() credential: Credential,
    @Query() query: NotificationListQueryDto,
  ): Promise<Page<NotificationDto>> {
    return this.notifications.list(credential, query);
  }

  @Get('unread-count')
  @ApiOperation({ summary: 'How many notifications are unread', description: SCOPE })
  @ApiOkResponse({ type: UnreadCountDto })
  unreadCount(@CurrentCredential() credential: Credential): Promise<UnreadCountDto> {
    return this.notifications.unreadCount(credential);
  }

  @Post('read-all')
  @HttpCode(200)
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Mark all as read',
    description: `Every unread notification (of \`category\` when given); answers how many changed. ${SCOPE}`,
  })
  @ApiOkResponse({ type: UpdatedDto })
  @ApiErrors(422)
  readAll(@CurrentCredential() credential: Credential, @Body() dto: ReadAllDto): Promise<UpdatedDto> {
    return this.notifications.markAllRead(credential, dto.category);
  }

  @Post(':notification_id/read')
  @HttpCode(204)
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Mark one as read',
    description: `Idempotent (204 again). Another person’s notification is 404. ${SCOPE}`,
  })
  @ApiNoContentResponse({ description: 'Read' })
  @ApiErrors(404)
  async read(
    @CurrentCredential() credential: Credential,
    @Param('notification_id') id: string,
    @Body() _body: NoBodyDto,
  ): Promise<void> {
    await this.notifications.markRead(credential, id);
  }

  @Delete(':notification_id')
  @HttpCode(204)
  @MinorAccess('always')
  @ApiOperation({ summary: 'Delete one', description: `Another person’s, or one already deleted, is 404. ${SCOPE}` })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(@CurrentCredential() credential: Credential, @Param('notification_id') id: string): Promise<void> {
    await this.notifications.remove(credential, id);
  }
}

@ApiTags('notifications')
@ApiExtraModels(ChannelPreferenceDto)
@Controller('me/notification-preferences')
export class NotificationPreferencesController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get()
  @ApiOperation({
    summary: 'My notification preferences',
    description:
      'Per category `{in_app, push, email}` (`email` null for the categories that never send email), quiet hours ' +
      'and the profile’s `time_zone` (read-only here; quiet hours are read in it).',
  })
  @ApiOkResponse({ type: NotificationPreferencesDto })
  get(@CurrentCredential() credential: Credential): Promise<NotificationPreferencesDto> {
    return this.notifications.preferences(credential.userId);
  }

  @Patch()
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Change my notification preferences',
    description:
      'Only the keys present change. 422 for an unknown category or channel, `email` on a category that never ' +
      'sends email, a time that is not `HH:MM`, or quiet hours whose start equals their end (start after end ' +
      'crosses midnight). Pushes and notification emails that fall inside quiet hours wait for their end.',
  })
  @ApiOkResponse({ type: NotificationPreferencesDto })
  @ApiErrors(422)
  update(
    @CurrentCredential() credential: Credential,
    @Body() dto: UpdatePreferencesDto,
  ): Promise<NotificationPreferencesDto> {
    return this.notifications.updatePreferences(credential.userId, dto);
  }
}
