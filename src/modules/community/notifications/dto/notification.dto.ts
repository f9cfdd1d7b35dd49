import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Equals, IsBoolean, IsIn, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { PageQueryDto } from '@/core/http/pagination';
import { UNSUBSCRIBE_TYPES, type UnsubscribeType } from '@/core/mail/unsubscribe-token';
import { CATEGORIES, type Category } from '../notification-categories';

const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

export class NotificationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: CATEGORIES }) category!: Category;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) organization_id!: string | null;
  @ApiProperty({ description: 'Written in the person’s language when created' }) title!: string;
  @ApiProperty() body!: string;
  @ApiProperty({ description: 'Absolute address under the web app' }) url!: string;
  @ApiProperty({
    type: 'object',
    properties: Object.fromEntries(
      ['course_id', 'badge_code', 'duel_id', 'session_id', 'post_id', 'ticket_id', 'report_id'].map((k) => [
        k,
        { type: 'string', maxLength: 100 },
      ]),
    ) as never,
    additionalProperties: false,
    description: 'Ids: course_id, badge_code, duel_id, session_id, post_id, ticket_id, report_id',
  })
  data!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) read_at!: string | null;
}

export class NotificationListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'true: unread only; false: read only' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  unread?: boolean;

  @ApiPropertyOptional({ enum: CATEGORIES })
  @IsOptional()
  @IsIn(CATEGORIES)
  category?: Category;
}

export class UnreadCountDto {
  @ApiProperty({ minimum: 0 }) unread!: number;
}

export class ReadAllDto {
  @ApiPropertyOptional({ enum: CATEGORIES })
  @IsOptional()
  @IsIn(CATEGORIES)
  category?: Category;
}

export class UpdatedDto {
  @ApiProperty({ minimum: 0 }) updated!: number;
}

export class NoBodyDto {
  @Equals(undefined) readonly none?: undefined;
}

// Preferences.

export class ChannelPreferenceDto {
  @ApiProperty() in_app!: boolean;
  @ApiProperty() push!: boolean;
  @ApiProperty({ nullable: true, type: Boolean, description: 'null for the categories that never send email' })
  email!: boolean | null;
}

export class QuietHoursDto {
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ example: '22:00', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }) start!: string;
  @ApiProperty({ example: '07:00', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }) end!: string;
}

const CATEGORY_SCHEMA = Object.fromEntries(
  CATEGORIES.map((c) => [c, { $ref: '#/components/schemas/ChannelPreferenceDto' }]),
);

export class NotificationPreferencesDto {
  @ApiProperty({ type: 'object', properties: CATEGORY_SCHEMA as never })
  categories!: Record<Category, ChannelPreferenceDto>;
  @ApiProperty({ type: QuietHoursDto }) quiet_hours!: QuietHoursDto;
  @ApiProperty({ description: 'The profile’s zone (read-only here)', example: 'Europe/Madrid' }) time_zone!: string;
}

export class QuietHoursPatchDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional({ example: '22:00' })
  @IsOptional()
  @IsString()
  @Matches(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, { message: 'must be HH:MM (24 h)' })
  start?: string;
  @ApiPropertyOptional({ example: '07:00' })
  @IsOptional()
  @IsString()
  @Matches(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, { message: 'must be HH:MM (24 h)' })
  end?: string;
}

export class UpdatePreferencesDto {
  @ApiPropertyOptional({
    type: 'object',
    description:
      '`{<category>: {in_app?, push?, email?}}`: only the keys present change. An unknown category, a non-boolean ' +
      'value or `email` on a category that never sends email is 422.',
    properties: Object.fromEntries(
      CATEGORIES.map((c) => [
        c,
        {
          type: 'object',
          properties: { in_app: { type: 'boolean' }, push: { type: 'boolean' }, email: { type: 'boolean' } },
          additionalProperties: false,
        },
      ]),
    ) as never,
    additionalProperties: false,
  })
  @IsOptional()
  @IsObject()
  categories?: Record<string, unknown>;

  @ApiPropertyOptional({ type: QuietHoursPatchDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => QuietHoursPatchDto)
  quiet_hours?: QuietHoursPatchDto;
}

// Unsubscribe.

export class UnsubscribeQueryDto {
  @ApiProperty({ pattern: '^[a-f0-9]{64}$' })
  @IsString()
  @Matches(/^[a-f0-9]{64}$/, { message: 'must be 64 lower-case hex digits' })
  token!: string;

  @ApiProperty({ enum: UNSUBSCRIBE_TYPES })
  @IsIn(UNSUBSCRIBE_TYPES)
  type!: UnsubscribeType;
}
