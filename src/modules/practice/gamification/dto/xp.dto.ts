import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { PersonDto } from '@/modules/tenancy/members';
import { XP_SOURCES } from '../xp-rules';

export class XpDto {
  @ApiProperty({ description: 'XP in this organization' }) xp!: number;
  @ApiProperty({ minimum: 1, description: 'The largest n >= 1 with 50 n (n - 1) <= xp' }) level!: number;
  @ApiProperty() level_floor_xp!: number;
  @ApiProperty() next_level_xp!: number;
  @ApiProperty({ minimum: 0, maximum: 99 }) progress_percent!: number;
  @ApiProperty({ description: "XP of the caller's local date (their time zone)" }) today_xp!: number;
  @ApiProperty({ description: "XP of the organization's current ISO week, as the leaderboard counts it" })
  week_xp!: number;
  @ApiProperty({ description: "XP of the organization's current month" }) month_xp!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Rank in the weekly leaderboard; null with 0 XP' })
  week_rank!: number | null;
}

export class XpHistoryEntryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) amount!: number;
  @ApiProperty({ enum: XP_SOURCES }) source!: string;
  @ApiProperty({
    description: 'What earned it: a lesson, course, path, exam, review, game or duel id; a date; a mission id',
  })
  source_id!: string;
  @ApiProperty({ description: 'Localized description ("Lección completada: Variables")' }) label!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class LeaderboardQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['week', 'month', 'all'], default: 'week' })
  @IsOptional()
  @IsIn(['week', 'month', 'all'])
  period: 'week' | 'month' | 'all' = 'week';

  @ApiPropertyOptional({
    description: 'A past period: `2026-W47` (at most 52 weeks back) or `2026-10` (at most 24 months back)',
    example: '2026-W47',
    maxLength: 8,
  })
  @IsOptional()
  @IsString()
  @MaxLength(8)
  @Matches(/^\d{4}-(W\d{2}|\d{2})$/, { message: 'period_key must be a week (2026-W47) or a month (2026-10)' })
  period_key?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "Only this cohort's students and teachers" })
  @IsOptional()
  @IsUUID()
  cohort_id?: string;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 25,
    description:
      'Beyond the contract: also answer `around`, the entries up to this many places above and below the caller ' +
      '(empty with 0 XP), so one request serves "the top and where I stand".',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(25)
  around?: number;
}

export class LeaderboardPeriodDto {
  @ApiProperty({ enum: ['week', 'month', 'all'] }) period!: string;
  @ApiProperty({ example: '2026-W48', description: '`all` for all time' }) key!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) starts_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) ends_at!: string | null;
}

export class LeaderboardMeDto {
  @ApiProperty({ type: Number, nullable: true }) rank!: number | null;
  @ApiProperty() xp!: number;
}

export class LeaderboardEntryDto {
  @ApiProperty() rank!: number;
  @ApiProperty({ type: PersonDto }) person!: PersonDto;
  @ApiProperty() xp!: number;
  @ApiProperty() is_me!: boolean;
}

export class LeaderboardDto {
  @ApiProperty({ type: [LeaderboardEntryDto] }) items!: LeaderboardEntryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
  @ApiProperty({ type: LeaderboardPeriodDto }) period!: LeaderboardPeriodDto;
  @ApiProperty({ type: LeaderboardMeDto }) me!: LeaderboardMeDto;
  @ApiPropertyOptional({ type: [LeaderboardEntryDto], description: 'Only with `around`' })
  around?: LeaderboardEntryDto[];
}
