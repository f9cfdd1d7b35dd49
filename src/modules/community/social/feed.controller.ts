import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  CommentDto,
  CommentInputDto,
  FeedItemDto,
  FeedQueryDto,
  PostInputDto,
  REACTION_KINDS,
  ReactionsDto,
  ContentReportDto,
  ContentReportInputDto,
} from './dto/feed.dto';
import { FeedService } from './feed.service';
import { COMMENT_ACCOUNT, POST_ACCOUNT, REPORT_ACCOUNT } from './social.limits';

const OFF = 'With the organization’s `feed_enabled: false`, 404 `feature_disabled`.';
const VISIBLE =
  'Others see only published posts; the author also sees their own `pending` and `hidden` posts; owners and admins ' +
  '(the moderators) see every post. A post the caller may not see is 404.';
const MODERATION =
  'A student’s content is `pending` under pre-moderation; content with a blocked term (case- and accent-insensitive, ' +
  'whole words) is `pending` whoever writes it. A muted member gets 403 `posting_muted`; minors cannot write here ' +
  '(403 `credential_read_only`).';

@ApiTags('social')
@Controller('organizations/:org_id')
@OrgScoped()
export class FeedController {
  constructor(private readonly feed: FeedService) {}

  @Get('feed')
  @ApiOperation({
    summary: 'The organization’s feed',
    description:
      'Posts and activity items, most recent first. Activity items (course completed, badge earned, certificate ' +
      'issued, program completed, level reached, streak milestone) are written when the fact happens for people ' +
      'whose profile is public and who are not minors, and are shown only while that still holds (checked at read ' +
      `time: a person who turns \`public_profile\` off disappears at once). Authors appear as person records (2.2). ${VISIBLE} ${OFF}`,
  })
  @ApiPageResponse(FeedItemDto)
  @ApiErrors(422, [404, 'feature_disabled'])
  list(@CurrentMembership() member: Membership, @Query() query: FeedQueryDto): Promise<Page<FeedItemDto>> {
    return this.feed.feed(member, query);
  }

  @Post('posts')
  @RateLimit(POST_ACCOUNT)
  @ApiOperation({
    summary: 'Post to the feed',
    description: `Markdown (1..2000 characters), rendered without raw HTML and sanitized into \`body_html\`. ${MODERATION} ${OFF}`,
  })
  @ApiCreatedResponse({ type: FeedItemDto })
  @ApiErrors(422, [403, 'posting_muted'], [404, 'feature_disabled'])
  createPost(@CurrentMembership() member: Membership, @Body() dto: PostInputDto): Promise<FeedItemDto> {
    return this.feed.createPost(member, dto);
  }

  @Get('posts/:post_id')
  @ApiOperation({ summary: 'A post', description: `${VISIBLE} ${OFF}` })
  @ApiOkResponse({ type: FeedItemDto })
  @ApiErrors([404, 'feature_disabled'])
  getPost(@CurrentMembership() member: Membership, @Param('post_id') postId: string): Promise<FeedItemDto> {
    return this.feed.getPost(member, postId);
  }

  @Patch('posts/:post_id')
  @ApiOperation({
    summary: 'Edit one’s post',
    description:
      'Only its author (403 for others who can see it). `edited_at` is set; the rules of a new post apply again ' +
      '(a student’s post is pending again under pre-moderation); a hidden post stays hidden until a moderator ' +
      `decides. A removed post is 409 \`post_removed\`. ${OFF}`,
  })
  @ApiOkResponse({ type: FeedItemDto })
  @ApiErrors(422, 403, [404, 'feature_disabled'], [409, 'post_removed'])
  updatePost(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Body() dto: PostInputDto,
  ): Promise<FeedItemDto> {
    return this.feed.updatePost(member, postId, dto);
  }

  @Delete('posts/:post_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a post',
    description:
      'Its author, or an owner/admin (audited `post.deleted`); with its comments, reactions and reports. Anyone ' +
      `else gets 404. ${OFF}`,
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors([404, 'feature_disabled'])
  async deletePost(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.feed.deletePost(member, postId, req.ip);
  }

  @Get('posts/:post_id/comments')
  @ApiOperation({
    summary: 'Comments of a post',
    description: `Oldest first; others’ comments only when published (owners and admins see all). ${VISIBLE} ${OFF}`,
  })
  @ApiPageResponse(CommentDto)
  @ApiErrors(422, [404, 'feature_disabled'])
  comments(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<CommentDto>> {
    return this.feed.comments(member, postId, query);
  }

  @Post('posts/:post_id/comments')
  @RateLimit(COMMENT_ACCOUNT)
  @ApiOperation({
    summary: 'Comment on a post',
    description: `Markdown (1..1000 characters). The post’s author is notified (\`comment.created\`) once the comment is published. ${MODERATION} ${OFF}`,
  })
  @ApiCreatedResponse({ type: CommentDto })
  @ApiErrors(422, [403, 'posting_muted'], [404, 'feature_disabled'])
  createComment(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Body() dto: CommentInputDto,
  ): Promise<CommentDto> {
    return this.feed.createComment(member, postId, dto);
  }

  @Delete('posts/:post_id/comments/:comment_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a comment',
    description: `Its author, the post’s author, or an owner/admin (audited \`comment.deleted\` when not its author). Anyone else gets 404. ${OFF}`,
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors([404, 'feature_disabled'])
  async deleteComment(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Param('comment_id') commentId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.feed.deleteComment(member, postId, commentId, req.ip);
  }

  @Put('feed/:item_id/reactions/:kind')
  @ApiOperation({
    summary: 'React to a feed item',
    description:
      'A post or an activity item the caller sees; `kind` is `like`, `celebrate`, `insightful` or `support` (else ' +
      `422). One reaction per person and kind: a repeat changes nothing (200). Muted members get 403 \`posting_muted\`; minors 403 \`credential_read_only\`. ${OFF}`,
  })
  @ApiParam({ name: 'kind', enum: REACTION_KINDS })
  @ApiOkResponse({ type: ReactionsDto })
  @ApiErrors(422, [403, 'posting_muted'], [404, 'feature_disabled'])
  react(
    @CurrentMembership() member: Membership,
    @Param('item_id') itemId: string,
    @Param('kind') kind: string,
  ): Promise<ReactionsDto> {
    return this.feed.react(member, itemId, kind);
  }

  @Delete('feed/:item_id/reactions/:kind')
  @HttpCode(204)
  @ApiOperation({ summary: 'Withdraw a reaction', description: `Idempotent: 204 whether or not it existed. ${OFF}` })
  @ApiParam({ name: 'kind', enum: REACTION_KINDS })
  @ApiNoContentResponse({ description: 'Withdrawn' })
  @ApiErrors(422, [404, 'feature_disabled'])
  async unreact(
    @CurrentMembership() member: Membership,
    @Param('item_id') itemId: string,
    @Param('kind') kind: string,
  ): Promise<void> {
    await this.feed.unreact(member, itemId, kind);
  }

  @Post('posts/:post_id/reports')
  @MinorAccess('always')
  @RateLimit(REPORT_ACCOUNT)
  @ApiOperation({
    summary: 'Report a post',
    description:
      'Once per person and post: a repeat answers 200 with the first report. Reporting one’s own post is 422. When ' +
      'the open reports reach `auto_hide_after_reports`, the post is hidden from everyone but its author and the ' +
      `moderators, in the same transaction. ${OFF}`,
  })
  @ApiCreatedResponse({ type: ContentReportDto })
  @ApiResponse({ status: 200, type: ContentReportDto, description: 'Already reported by the caller' })
  @ApiErrors(422, [404, 'feature_disabled'])
  async reportPost(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Body() dto: ContentReportInputDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentReportDto> {
    const { report, created } = await this.feed.reportPost(member, postId, dto);
    res.status(created ? 201 : 200);
    return report;
  }

  @Post('posts/:post_id/comments/:comment_id/reports')
  @MinorAccess('always')
  @RateLimit(REPORT_ACCOUNT)
  @ApiOperation({
    summary: 'Report a comment',
    description: `As a post report (\`item_type: comment\`). ${OFF}`,
  })
  @ApiCreatedResponse({ type: ContentReportDto })
  @ApiResponse({ status: 200, type: ContentReportDto, description: 'Already reported by the caller' })
  @ApiErrors(422, [404, 'feature_disabled'])
  async reportComment(
    @CurrentMembership() member: Membership,
    @Param('post_id') postId: string,
    @Param('comment_id') commentId: string,
    @Body() dto: ContentReportInputDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentReportDto> {
    const { report, created } = await this.feed.reportComment(member, postId, commentId, dto);
    res.status(created ? 201 : 200);
    return report;
  }
}
