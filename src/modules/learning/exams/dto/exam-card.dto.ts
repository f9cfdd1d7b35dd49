import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsUUID, Matches, ValidateIf } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import type { AvailabilityState } from '../exam-rules';
import { ProctoringDto } from './exam.dto';

/** An instant with its zone: `Z` or an offset (a local time without one would be ambiguous). */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DATE_TIME_MESSAGE = (field: string): string => `${field} must be an ISO 8601 date-time with Z or an offset`;
export const AVAILABILITY_STATES = ['not_scheduled', 'upcoming', 'open', 'closed'] as const;

// Inputs.

export class ExamCardQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the exams of this course' })
  @IsOptional()
  @IsUUID('all')
  course_id?: string;
}

export class CreateWindowDto {
  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    default: null,
    description: 'A cohort of the organization (its students); null or absent: every member (owner/admin only)',
  })
  @IsOptional()
  @IsUUID('all')
  cohort_id?: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-12-01T09:00:00.000Z' })
  @Matches(DATE_TIME, { message: DATE_TIME_MESSAGE('opens_at') })
  @IsISO8601({ strict: true }, { message: DATE_TIME_MESSAGE('opens_at') })
  opens_at!: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    default: null,
    description: 'After `opens_at`; null or absent: open-ended',
  })
  @IsOptional()
  @Matches(DATE_TIME, { message: DATE_TIME_MESSAGE('closes_at') })
  @IsISO8601({ strict: true }, { message: DATE_TIME_MESSAGE('closes_at') })
  closes_at?: string | null;
}

export class UpdateWindowDto {
  @ApiPropertyOptional({ format: 'date-time' })
  @ValidateIf((_o, v) => v !== undefined)
  @Matches(DATE_TIME, { message: DATE_TIME_MESSAGE('opens_at') })
  @IsISO8601({ strict: true }, { message: DATE_TIME_MESSAGE('opens_at') })
  opens_at?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'null: open-ended' })
  @IsOptional()
  @Matches(DATE_TIME, { message: DATE_TIME_MESSAGE('closes_at') })
  @IsISO8601({ strict: true }, { message: DATE_TIME_MESSAGE('closes_at') })
  closes_at?: string | null;
}

// Responses.

export class UserRefDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null once that person was erased' })
  user_id!: string | null;
}

export class ExamWindowDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) exam_id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: every member' })
  cohort_id!: string | null;
  @ApiProperty({ format: 'date-time' }) opens_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) closes_at!: string | null;
  @ApiProperty({ type: UserRefDto }) created_by!: UserRefDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ExamWindowListDto {
  @ApiProperty({ type: [ExamWindowDto] }) items!: ExamWindowDto[];
}

export class AvailabilityDto {
  @ApiProperty({
    enum: AVAILABILITY_STATES,
    description:
      'For the caller, from the windows that apply to them: `open` when one contains now, `upcoming` when one lies ' +
      'ahead, `closed` when all lie behind, `not_scheduled` when none exists',
  })
  state!: AvailabilityState;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'open: the earliest opening of the open windows; upcoming: the next opening; closed: the last window',
  })
  opens_at!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'open: the latest closing of the open windows (null when one is open-ended)',
  })
  closes_at!: string | null;
}

export class MyExamDto {
  @ApiProperty({ minimum: 0, description: 'Sessions that count (a void with `allow_retake` gives one back)' })
  attempts_used!: number;
  @ApiProperty({ minimum: 0 }) attempts_left!: number;
  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 100, description: 'Of the graded, not voided' })
  best_score!: number | null;
  @ApiProperty({ description: 'A submitted session passed and not voided nor awaiting review' }) passed!: boolean;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) active_session_id!: string | null;
}

export class ExamCardDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() course_title!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ minimum: 1, maximum: 600 }) duration_minutes!: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) passing_score!: number;
  @ApiProperty({ minimum: 1 }) questions_per_attempt!: number;
  @ApiProperty({ minimum: 1, maximum: 10 }) max_attempts!: number;
  @ApiProperty() required_for_completion!: boolean;
  @ApiProperty({ type: AvailabilityDto }) availability!: AvailabilityDto;
  @ApiProperty({ type: MyExamDto }) my!: MyExamDto;
}

export class ExamDetailDto extends ExamCardDto {
  @ApiProperty() instructions_md!: string;
  @ApiProperty({ type: ProctoringDto }) proctoring!: ProctoringDto;
  @ApiProperty({
    type: [ExamWindowDto],
    description:
      'The windows that apply to the caller; owners and admins see every window, teachers also those of their cohorts',
  })
  windows!: ExamWindowDto[];
}
