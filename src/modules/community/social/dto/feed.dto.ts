import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { PersonDto } from '@/modules/tenancy/members';

export const ACTIVITY_KINDS = [
  'course_completed',
  'badge_earned',
  'certificate_issued',
  'program_completed',
  'level_reached',
  'streak_milestone',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
export const ITEM_KINDS = ['post', ...ACTIVITY_KINDS] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
export const REACTION_KINDS = ['like', 'celebrate', 'insightful', 'support'] as const;
export type ReactionKind = (typeof REACTION_KINDS)[number];
export const CONTENT_STATUSES = ['published', 'pending', 'hidden', 'removed'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];
export const REPORT_REASONS = ['spam', 'harassment', 'inappropriate', 'misinformation', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export class FeedQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['all', 'posts', 'activity'], default: 'all' })
  @IsOptional()
  @IsIn(['all', 'posts', 'activity'])
  kind: 'all' | 'posts' | 'activity' = 'all';
}

export class PostInputDto {
  @ApiProperty({ minLength: 1, maxLength: 2000, description: 'Markdown (raw HTML is shown as text)' })
  @IsString()
  @Length(1, 2000)
  @Matches(/\S/, { message: 'body_md must not be blank' })
  body_md!: string;
}

export class CommentInputDto {
  @ApiProperty({ minLength: 1, maxLength: 1000, description: 'Markdown (raw HTML is shown as text)' })
  @IsString()
  @Length(1, 1000)
  @Matches(/\S/, { message: 'body_md must not be blank' })
  body_md!: string;
}

export class PostViewDto {
  @ApiProperty() body_md!: string;
  @ApiProperty({ description: 'Rendered and sanitized; links carry rel="nofollow noopener ugc"' }) body_html!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) edited_at!: string | null;
  @ApiProperty({ enum: CONTENT_STATUSES }) status!: ContentStatus;
  @ApiProperty({ description: 'Published comments' }) comments_count!: number;
}

export class ReactionCountsDto {
  @ApiProperty() like!: number;
  @ApiProperty() celebrate!: number;
  @ApiProperty() insightful!: number;
  @ApiProperty() support!: number;
}

/** The fields of an activity item (11.1); only those of its kind are present. */
export class FeedActivityDto {
  @ApiPropertyOptional({ format: 'uuid' }) course_id?: string;
  @ApiPropertyOptional({ maxLength: 200 }) course_title?: string;
  @ApiPropertyOptional({ maxLength: 100 }) badge_code?: string;
  @ApiPropertyOptional({ maxLength: 200 }) badge_name?: string;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 }) icon?: string | null;
  @ApiPropertyOptional({ enum: ['course', 'program'] }) certificate_type?: 'course' | 'program';
  @ApiPropertyOptional({ maxLength: 300 }) title?: string;
  @ApiPropertyOptional({ format: 'uuid' }) path_id?: string;
  @ApiPropertyOptional({ maxLength: 200 }) path_title?: string;
  @ApiPropertyOptional({ minimum: 1 }) level?: number;
  @ApiPropertyOptional({ minimum: 1 }) streak_days?: number;
}

export class FeedItemDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ITEM_KINDS }) kind!: ItemKind;
  @ApiProperty({ type: PersonDto }) author!: PersonDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: PostViewDto, nullable: true }) post!: PostViewDto | null;
  @ApiProperty({
    type: FeedActivityDto,
    nullable: true,
    description:
      'By kind: course_completed `course_id, course_title`; badge_earned `badge_code, badge_name, icon`; ' +
      'certificate_issued `certificate_type, title`; program_completed `path_id, path_title`; level_reached ' +
      '`level`; streak_milestone `streak_days`. Null for posts.',
  })
  activity!: FeedActivityDto | null;
  @ApiProperty({ type: ReactionCountsDto }) reactions!: ReactionCountsDto;
  @ApiProperty({ enum: REACTION_KINDS, isArray: true }) my_reactions!: ReactionKind[];
}

export class ReactionsDto {
  @ApiProperty({ type: ReactionCountsDto }) reactions!: ReactionCountsDto;
  @ApiProperty({ enum: REACTION_KINDS, isArray: true }) my_reactions!: ReactionKind[];
}

export class CommentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) post_id!: string;
  @ApiProperty({ type: PersonDto }) author!: PersonDto;
  @ApiProperty() body_md!: string;
  @ApiProperty() body_html!: string;
  @ApiProperty({ enum: CONTENT_STATUSES }) status!: ContentStatus;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) edited_at!: string | null;
}

export class ContentReportInputDto {
  @ApiProperty({ enum: REPORT_REASONS }) @IsIn(REPORT_REASONS) reason!: ReportReason;
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  details?: string;
}

export class ContentReportDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['post', 'comment'] }) item_type!: 'post' | 'comment';
  @ApiProperty({ format: 'uuid' }) item_id!: string;
  @ApiProperty({ enum: REPORT_REASONS }) reason!: ReportReason;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** Reaction kind path parameter: validated by the service (422 for an unknown kind). */
export const reactionKind = (value: unknown): value is ReactionKind =>
  typeof value === 'string' && (REACTION_KINDS as readonly string[]).includes(value);
