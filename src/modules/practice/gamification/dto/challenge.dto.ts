import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { PersonDto } from '@/modules/tenancy/members';

export const CHALLENGE_METRICS = ['xp', 'lessons_completed', 'flashcard_reviews', 'duels_won'] as const;
export type ChallengeMetric = (typeof CHALLENGE_METRICS)[number];
export const CHALLENGE_STATUSES = ['upcoming', 'active', 'finished'] as const;

export class CreateChallengeDto {
  @ApiProperty({ minLength: 1, maxLength: 120 })
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  title!: string;

  @ApiPropertyOptional({ maxLength: 2000, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description_md?: string;

  @ApiProperty({ enum: CHALLENGE_METRICS })
  @IsIn(CHALLENGE_METRICS)
  metric!: ChallengeMetric;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Only with `lessons_completed`' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  course_id?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'A cohort of this organization' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  cohort_id?: string | null;

  @ApiProperty({ format: 'date-time', description: 'Now or later' })
  @Type(() => Date)
  @IsDate()
  starts_at!: Date;

  @ApiProperty({ format: 'date-time', description: 'After `starts_at`, at most 90 days after it' })
  @Type(() => Date)
  @IsDate()
  ends_at!: Date;
}

export class UpdateChallengeDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  title?: string;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description_md?: string;

  @ApiPropertyOptional({ enum: CHALLENGE_METRICS })
  @IsOptional()
  @IsIn(CHALLENGE_METRICS)
  metric?: ChallengeMetric;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  course_id?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  cohort_id?: string | null;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  starts_at?: Date;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  ends_at?: Date;
}

export class ChallengeListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: CHALLENGE_STATUSES })
  @IsOptional()
  @IsIn(CHALLENGE_STATUSES)
  status?: (typeof CHALLENGE_STATUSES)[number];
}

export class ChallengeMyDto {
  @ApiProperty() rank!: number;
  @ApiProperty() value!: number;
}

export class StandingDto {
  @ApiProperty() rank!: number;
  @ApiProperty({ type: PersonDto }) person!: PersonDto;
  @ApiProperty() value!: number;
  @ApiProperty() is_me!: boolean;
}

export class ChallengeDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() description_md!: string;
  @ApiProperty({ enum: CHALLENGE_METRICS }) metric!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) course_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) cohort_id!: string | null;
  @ApiProperty({ format: 'date-time' }) starts_at!: string;
  @ApiProperty({ format: 'date-time' }) ends_at!: string;
  @ApiProperty({ enum: CHALLENGE_STATUSES }) status!: string;
  @ApiProperty({ type: PersonDto }) created_by!: PersonDto;
  @ApiProperty() participants_count!: number;
  @ApiProperty() joined!: boolean;
  @ApiProperty({ type: ChallengeMyDto, nullable: true }) my!: ChallengeMyDto | null;
  @ApiProperty({ type: [Number], example: [100, 60, 30] }) rewards!: number[];
  @ApiPropertyOptional({ type: [StandingDto], description: 'The single read only: the first 10 standings' })
  top?: StandingDto[];
}
