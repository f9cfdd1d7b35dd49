import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateString, IsOptional, IsString, IsUUID, Length, Matches, ValidateIf } from 'class-validator';

export const TITLE_MAX = 120;
export const DEADLINE_STATUSES = ['upcoming', 'done', 'overdue'] as const;
export type DeadlineStatus = (typeof DEADLINE_STATUSES)[number];

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const present = (_: object, v: unknown): boolean => v !== undefined;

export class CreateDeadlineDto {
  @ApiProperty({ format: 'uuid', description: 'A course of the organization’s catalog' })
  @IsUUID()
  course_id!: string;

  @ApiProperty({ format: 'date-time', description: 'In the future' })
  @IsString()
  @Matches(DATE_TIME, { message: 'due_at must be an ISO 8601 date-time with Z or an offset' })
  @IsDateString({ strict: true }, { message: 'due_at must be a valid date-time' })
  due_at!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: TITLE_MAX, description: 'Default: the course title' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, TITLE_MAX)
  title?: string;
}

export class UpdateDeadlineDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'In the future' })
  @ValidateIf(present)
  @IsString()
  @Matches(DATE_TIME, { message: 'due_at must be an ISO 8601 date-time with Z or an offset' })
  @IsDateString({ strict: true }, { message: 'due_at must be a valid date-time' })
  due_at?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: TITLE_MAX })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, TITLE_MAX)
  title?: string;
}

export class DeadlineRangeDto {
  @ApiPropertyOptional({ format: 'date', description: 'First local day (organization’s time zone), inclusive' })
  @IsOptional()
  @Matches(DATE, { message: 'from must be a date YYYY-MM-DD' })
  @IsDateString({ strict: true }, { message: 'from must be a valid date' })
  from?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Last local day, inclusive' })
  @IsOptional()
  @Matches(DATE, { message: 'to must be a date YYYY-MM-DD' })
  @IsDateString({ strict: true }, { message: 'to must be a valid date' })
  to?: string;
}

export class DeadlineCreatorDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) user_id!: string | null;
}

export class DeadlineDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) cohort_id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() course_title!: string;
  @ApiProperty({ minLength: 1, maxLength: TITLE_MAX }) title!: string;
  @ApiProperty({ format: 'date-time' }) due_at!: string;
  @ApiProperty({ type: DeadlineCreatorDto }) created_by!: DeadlineCreatorDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiPropertyOptional({
    enum: DEADLINE_STATUSES,
    description:
      'For a learner: `done` when the course was completed here before `due_at`, `overdue` when `due_at` passed ' +
      'without that, else `upcoming`. In a cohort’s list only its students get it.',
  })
  status?: DeadlineStatus;
}

export class DeadlineListDto {
  @ApiProperty({ type: [DeadlineDto] }) items!: DeadlineDto[];
}

export class CalendarFeedStatusDto {
  @ApiProperty() active!: boolean;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) created_at!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_fetched_at!: string | null;
}

export class CalendarFeedCreatedDto {
  @ApiProperty({
    example: 'https://api.example.com/api/v1/calendar/q3Jv0x9l0TzV3yq8f0d4bVbqT1m2E6gF0uJ9p7kZ4aQ.ics',
    description: 'The private address, shown only here',
  })
  url!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
