import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Matches, Max, Min, ValidateIf } from 'class-validator';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class StreakDto {
  @ApiProperty({ description: 'Active days of the unbroken run ending today (if active) or yesterday' })
  current!: number;
  @ApiProperty() longest!: number;
  @ApiProperty() today_active!: boolean;
  @ApiProperty({ description: '`current > 0` and today not active yet' }) at_risk!: boolean;
  @ApiProperty({ minimum: 0, maximum: 2 }) freezes_available!: number;
  @ApiProperty({ example: 2 }) freezes_cap!: number;
  @ApiProperty({ type: String, format: 'date', nullable: true }) last_active_on!: string | null;
  @ApiProperty({ example: 'Europe/Madrid' }) time_zone!: string;
  @ApiProperty({ type: [String], description: 'Frozen days of the last 60 days (local dates)' })
  frozen_on!: string[];
}

export class ActivityQueryDto {
  @ApiPropertyOptional({ format: 'date', description: 'Local date; default 364 days before `to`' })
  @IsOptional()
  @Matches(DATE, { message: 'from must be a date YYYY-MM-DD' })
  from?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Local date; default today' })
  @IsOptional()
  @Matches(DATE, { message: 'to must be a date YYYY-MM-DD' })
  to?: string;
}

export class ActivityDayDto {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty() frozen!: boolean;
  @ApiProperty() xp!: number;
  @ApiProperty() lessons_completed!: number;
  @ApiProperty() quiz_submissions!: number;
  @ApiProperty() reviews!: number;
  @ApiProperty() exams_submitted!: number;
  @ApiProperty() games_finished!: number;
  @ApiProperty() duels_finished!: number;
}

export class ActivityDto {
  @ApiProperty() time_zone!: string;
  @ApiProperty({ format: 'date' }) from!: string;
  @ApiProperty({ format: 'date' }) to!: string;
  @ApiProperty({ type: [ActivityDayDto], description: 'Ascending; only days with activity or a freeze' })
  days!: ActivityDayDto[];
}

export class GoalsTodayDto {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty() xp!: number;
  @ApiProperty() met!: boolean;
}

export class GoalsWeekDto {
  @ApiProperty({ example: '2026-W48' }) week!: string;
  @ApiProperty() lessons!: number;
  @ApiProperty() met!: boolean;
}

export class GoalsDto {
  @ApiProperty({ type: Number, nullable: true, minimum: 10, maximum: 1000 }) daily_xp!: number | null;
  @ApiProperty({ type: Number, nullable: true, minimum: 1, maximum: 50 }) weekly_lessons!: number | null;
  @ApiProperty({ type: GoalsTodayDto }) today!: GoalsTodayDto;
  @ApiProperty({ type: GoalsWeekDto }) this_week!: GoalsWeekDto;
}

export class UpdateGoalsDto {
  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 10, maximum: 1000 })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(10)
  @Max(1000)
  daily_xp?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 1, maximum: 50 })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(50)
  weekly_lessons?: number | null;
}
