import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { CommentDto, FeedItemDto } from './dto/feed.dto';
import {
  DecisionInputDto,
  ModerationSettingsDto,
  ModerationSettingsInputDto,
  MuteDto,
  MuteInputDto,
  QueueItemDto,
  QueueQueryDto,
} from './dto/moderation.dto';
import { ModerationService } from './moderation.service';

const OFF = 'With `feed_enabled: false`, 404 `feature_disabled`.';
const DECISION =
  '`approve`: the item is published and its open reports dismissed; `remove`: removed, its open reports upheld, and ' +
  'the author is told the reason (`moderation.decided`; with `warn_author: true` also on approve). An item with ' +
  'nothing to decide (published without open reports, or removed) is 409 `nothing_to_moderate`. Audited ' +
  '`moderation.decided` with the reason.';

@ApiTags('moderation')
@Controller('organizations/:org_id/moderation')
@OrgScoped()
@Roles('owner', 'admin')
export class ModerationController {
  constructor(private readonly moderation: ModerationService) {}

  @Get('queue')
  @ApiOperation({
    summary: 'The moderation queue',
    description:
      'Pending and hidden posts and comments, and published ones with open reports, oldest first, with why each ' +
      `is there and the open reports by reason. \`status\` narrows it (\`reported\`: items with open reports). ${OFF}`,
  })
  @ApiPageResponse(QueueItemDto)
  @ApiErrors(422, [404, 'feature_disabled'])
  queue(@CurrentMembership() member: Membership, @Query() query: QueueQueryDto): Promise<Page<QueueItemDto>> {
    return this.moderation.queue(member, query);
  }

  @Post('posts/:post_id/decision')
  @HttpCode(200)
  @ApiOperation({ summary: 'Decide about a post', description: `${DECISION} ${OFF}` })
  @ApiOkResponse({ type: FeedItemDto })
  @ApiErrors(422, [404, 'feature_disabled'], [409, 'nothing_to_moderate'])
  decidePost(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Body() dto: DecisionInputDto,
    @Req() req: Request,
  ): Promise<FeedItemDto> {
    return this.moderation.decidePost(member, postId, dto, req.ip);
  }

  @Post('comments/:comment_id/decision')
  @HttpCode(200)
  @ApiOperation({ summary: 'Decide about a comment', description: `${DECISION} ${OFF}` })
  @ApiOkResponse({ type: CommentDto })
  @ApiErrors(422, [404, 'feature_disabled'], [409, 'nothing_to_moderate'])
  decideComment(
    @CurrentMembership() member: Membership,
    @Param('comment_id') commentId: string,
    @Body() dto: DecisionInputDto,
    @Req() req: Request,
  ): Promise<CommentDto> {
    return this.moderation.decideComment(member, commentId, dto, req.ip);
  }

  @Get('settings')
  @ApiOperation({ summary: 'Moderation settings', description: 'Answers also while the feed is switched off.' })
  @ApiOkResponse({ type: ModerationSettingsDto })
  settings(@CurrentMembership() member: Membership): Promise<ModerationSettingsDto> {
    return this.moderation.settings(member);
  }

  @Put('settings')
  @ApiOperation({
    summary: 'Change the moderation settings',
    description:
      'A key left out keeps its value. `auto_hide_after_reports` 1..20; `blocked_terms` at most 200, each 2..40 ' +
      'characters (matched case- and accent-insensitively, as whole words). Audited `moderation.settings_updated`.',
  })
  @ApiOkResponse({ type: ModerationSettingsDto })
  @ApiErrors(422)
  updateSettings(
    @CurrentMembership() member: Membership,
    @Body() dto: ModerationSettingsInputDto,
    @Req() req: Request,
  ): Promise<ModerationSettingsDto> {
    return this.moderation.updateSettings(member, dto, req.ip);
  }

  @Get('mutes')
  @ApiOperation({ summary: 'Muted members', description: `Mutes in force, most recent first. ${OFF}` })
  @ApiPageResponse(MuteDto)
  @ApiErrors(422, [404, 'feature_disabled'])
  mutes(@CurrentMembership() member: Membership, @Query() query: PageQueryDto): Promise<Page<MuteDto>> {
    return this.moderation.mutes(member, query);
  }

  @Post('mutes')
  @ApiOperation({
    summary: 'Mute a member',
    description:
      'They cannot post, comment or react until `until` (after now, at most 365 days ahead). A member already muted ' +
      'gets the new mute (200). Owners and admins cannot be muted (403); not a member: 404. Audited `member.muted`. ' +
      OFF,
  })
  @ApiCreatedResponse({ type: MuteDto })
  @ApiResponse({ status: 200, type: MuteDto, description: 'Replaced the mute in force' })
  @ApiErrors(422, 403, [404, 'feature_disabled'])
  async mute(
    @CurrentMembership() member: Membership,
    @Body() dto: MuteInputDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MuteDto> {
    const { mute, replaced } = await this.moderation.mute(member, dto, req.ip);
    res.status(replaced ? 200 : 201);
    return mute;
  }

  @Delete('mutes/:user_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Unmute a member', description: `404 when not muted. Audited \`member.unmuted\`. ${OFF}` })
  @ApiNoContentResponse({ description: 'Unmuted' })
  @ApiErrors([404, 'feature_disabled'])
  async unmute(
    @CurrentMembership() member: Membership,
    @Param('user_id') userId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.moderation.unmute(member, userId, req.ip);
  }
}
