import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsUUID, Min, ValidateIf } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { PersonDto } from '@/modules/tenancy/members';
import { IsOptional } from 'class-validator';

export const MODES = ['survival', 'speed', 'risk'] as const;
export const STATUSES = ['in_progress', 'finished', 'abandoned'] as const;
export const END_REASONS = [
  'lives_exhausted',
  'time_up',
  'questions_exhausted',
  'question_limit',
  'points_exhausted',
  'abandoned',
] as const;
export const PERIODS = ['week', 'month', 'all'] as const;
const KINDS = ['single', 'multiple', 'true_false'] as const;

const present = (_: object, v: unknown): boolean => v !== undefined;

export class StartGameDto {
  @ApiProperty({ enum: MODES }) @IsIn(MODES) mode!: (typeof MODES)[number];
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'One course; without it every course the caller is enrolled in here',
  })
  @ValidateIf(present)
  @IsUUID()
  course_id?: string;
}

export class AnswerDto {
  @ApiProperty({ format: 'uuid', description: 'The current question' }) @IsUUID() question_id!: string;
  @ApiProperty({ type: [String], format: 'uuid', maxItems: 10, description: 'Chosen options (none: a wrong answer)' })
  @IsArray()
  @ArrayMaxSize(10)
  @IsUUID(undefined, { each: true })
  option_ids!: string[];
  @ApiPropertyOptional({ minimum: 1, description: 'Risk only (required there): 1..points' })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  wager?: number;
}

export class GameOptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() text!: string;
}

export class GameQuestionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) number!: number;
  @ApiProperty() prompt!: string;
  @ApiProperty({ enum: KINDS }) kind!: (typeof KINDS)[number];
  @ApiProperty({ type: [GameOptionDto], description: 'Shuffled' }) options!: GameOptionDto[];
  @ApiProperty({ format: 'date-time' }) served_at!: string;
  @ApiProperty({ format: 'date-time', description: 'Answers are accepted until 1 000 ms after it (network grace)' })
  deadline_at!: string;
}

export class GameDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: MODES }) mode!: (typeof MODES)[number];
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) course_id!: string | null;
  @ApiProperty({ enum: STATUSES }) status!: (typeof STATUSES)[number];
  @ApiProperty({ minimum: 0 }) score!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Survival only' }) lives!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Risk only (equal to `score`)' }) points!: number | null;
  @ApiProperty({ minimum: 0 }) questions_answered!: number;
  @ApiProperty({ minimum: 0 }) correct_answers!: number;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Speed only: the end of the 60 s' })
  ends_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
  @ApiProperty({ enum: END_REASONS, nullable: true }) end_reason!: (typeof END_REASONS)[number] | null;
  @ApiProperty({ type: GameQuestionDto, nullable: true }) current_question!: GameQuestionDto | null;
  @ApiProperty({ format: 'date-time', description: 'The server’s clock, which decides' }) server_now!: string;
  @ApiProperty({
    minimum: 0,
    maximum: 30,
    description:
      'XP the game is worth (extensions-v2 3.2: min(30, floor(score / 10)) once finished, 0 otherwise); the XP ledger ' +
      'applies its daily cap when it awards them',
  })
  xp_awarded!: number;
}

export class AnswerResultDto {
  @ApiProperty({ format: 'uuid' }) question_id!: string;
  @ApiProperty() correct!: boolean;
  @ApiProperty({ description: 'Received after `deadline_at + 1000 ms`: counted wrong' }) timed_out!: boolean;
  @ApiProperty({ type: [String], format: 'uuid' }) correct_option_ids!: string[];
  @ApiProperty({ type: String, nullable: true }) explanation!: string | null;
  @ApiProperty() points_delta!: number;
  @ApiProperty({ type: GameDto }) game!: GameDto;
}

export class GameListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: MODES }) @IsOptional() @IsIn(MODES) mode?: (typeof MODES)[number];
  @ApiPropertyOptional({ enum: STATUSES }) @IsOptional() @IsIn(STATUSES) status?: (typeof STATUSES)[number];
}

export class GameLeaderboardQueryDto extends PageQueryDto {
  @ApiProperty({ enum: MODES }) @IsIn(MODES) mode!: (typeof MODES)[number];
  @ApiPropertyOptional({ enum: PERIODS, default: 'week', description: 'In the organization’s zone' })
  @IsOptional()
  @IsIn(PERIODS)
  period: (typeof PERIODS)[number] = 'week';
}

export class GameLeaderboardEntryDto {
  @ApiProperty({ minimum: 1 }) rank!: number;
  @ApiProperty({ type: PersonDto }) person!: PersonDto;
  @ApiProperty({ minimum: 0 }) best_score!: number;
  @ApiProperty() is_me!: boolean;
}

export class GameLeaderboardMeDto {
  @ApiProperty({ type: Number, nullable: true }) rank!: number | null;
  @ApiProperty({ type: Number, nullable: true }) best_score!: number | null;
}

export class GameLeaderboardDto {
  @ApiProperty({ type: [GameLeaderboardEntryDto] }) items!: GameLeaderboardEntryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
  @ApiProperty({ type: GameLeaderboardMeDto }) me!: GameLeaderboardMeDto;
}
