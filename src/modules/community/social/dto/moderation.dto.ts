import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { CONTENT_STATUSES, type ContentStatus, REPORT_REASONS, type ReportReason } from './feed.dto';

export class ModerationSettingsDto {
  @ApiProperty() feed_enabled!: boolean;
  @ApiProperty() pre_moderation!: boolean;
  @ApiProperty({ minimum: 1, maximum: 20 }) auto_hide_after_reports!: number;
  @ApiProperty({ type: [String], maxItems: 200 }) blocked_terms!: string[];
}

export class ModerationSettingsInputDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() feed_enabled?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() pre_moderation?: boolean;
  @ApiPropertyOptional({ minimum: 1, maximum: 20 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20)
  auto_hide_after_reports?: number;
  @ApiPropertyOptional({ type: [String], maxItems: 200, description: 'Each 2..40 characters' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Length(2, 40, { each: true })
  blocked_terms?: string[];
}

export class QueueQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['pending', 'hidden', 'reported', 'all'], default: 'all' })
  @IsOptional()
  @IsIn(['pending', 'hidden', 'reported', 'all'])
  status: 'pending' | 'hidden' | 'reported' | 'all' = 'all';
}

export class QueueAuthorDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
}

export class ReasonCountDto {
  @ApiProperty({ enum: REPORT_REASONS }) reason!: ReportReason;
  @ApiProperty() count!: number;
}

export class QueueItemDto {
  @ApiProperty({ enum: ['post', 'comment'] }) item_type!: 'post' | 'comment';
  @ApiProperty({ format: 'uuid' }) item_id!: string;
  @ApiProperty({ format: 'uuid' }) post_id!: string;
  @ApiProperty({ type: QueueAuthorDto }) author!: QueueAuthorDto;
  @ApiProperty() body_md!: string;
  @ApiProperty({ enum: CONTENT_STATUSES }) status!: ContentStatus;
  @ApiProperty({ enum: ['pre_moderation', 'blocked_term', 'reports'], isArray: true }) reasons!: (
    'pre_moderation' | 'blocked_term' | 'reports'
  )[];
  @ApiProperty({ type: [ReasonCountDto], description: 'Open reports by reason' }) reports!: ReasonCountDto[];
  @ApiProperty({ description: 'Open reports' }) reports_count!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class DecisionInputDto {
  @ApiProperty({ enum: ['approve', 'remove'] }) @IsIn(['approve', 'remove']) action!: 'approve' | 'remove';
  @ApiProperty({ minLength: 1, maxLength: 500 }) @IsString() @Length(1, 500) reason!: string;
  @ApiPropertyOptional({ description: 'Also send the reason to the author on approve' })
  @IsOptional()
  @IsBoolean()
  warn_author?: boolean;
}

export class MuteInputDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() user_id!: string;
  @ApiProperty({ format: 'date-time', description: 'After now, at most 365 days ahead' })
  @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/, {
    message: 'until must be an ISO 8601 date-time with Z or an offset',
  })
  @IsISO8601({ strict: true })
  until!: string;
  @ApiProperty({ minLength: 1, maxLength: 500 }) @IsString() @Length(1, 500) reason!: string;
}

export class MutedByDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) user_id!: string | null;
}

export class MuteDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ format: 'date-time' }) until!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ type: MutedByDto }) muted_by!: MutedByDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
