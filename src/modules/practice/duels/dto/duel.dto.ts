import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { PersonDto } from '@/modules/tenancy/members';

export const DUEL_STATUSES = [
  'pending',
  'ready',
  'active',
  'finished',
  'declined',
  'cancelled',
  'expired',
  'abandoned',
] as const;

export class CreateDuelDto {
  @ApiProperty({ description: 'The colleague to challenge, by username (same organization)', maxLength: 64 })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  opponent_username!: string;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, description: 'Questions of this course only' })
  @IsOptional()
  @IsUUID('all')
  course_id?: string | null;
}

export class DuelListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DUEL_STATUSES })
  @IsOptional()
  @IsIn(DUEL_STATUSES)
  status?: (typeof DUEL_STATUSES)[number];

  @ApiPropertyOptional({ enum: ['challenger', 'opponent'] })
  @IsOptional()
  @IsIn(['challenger', 'opponent'])
  role?: 'challenger' | 'opponent';
}

export class NoBodyDto {}

export class DuelScoresDto {
  @ApiProperty() challenger!: number;
  @ApiProperty() opponent!: number;
}

export class DuelResultDto {
  @ApiProperty({ enum: ['challenger', 'opponent'], nullable: true, type: String })
  winner!: 'challenger' | 'opponent' | null;

  @ApiProperty({ enum: ['completed', 'forfeit', 'disconnect'] })
  reason!: 'completed' | 'forfeit' | 'disconnect';
}

export class DuelOptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() text!: string;
}

export class DuelRoundQuestionDto {
  @ApiProperty() prompt!: string;
  @ApiProperty({ type: [DuelOptionDto] }) options!: DuelOptionDto[];
  @ApiProperty({ type: [String], format: 'uuid' }) correct_option_ids!: string[];
}

export class DuelPlayerRoundDto {
  @ApiProperty({ type: [String], format: 'uuid' }) option_ids!: string[];
  @ApiProperty() correct!: boolean;
  @ApiProperty() points!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null: no answer in time' }) answer_ms!: number | null;
}

export class DuelRoundDto {
  @ApiProperty({ minimum: 1, maximum: 5 }) round!: number;
  @ApiProperty({ type: DuelRoundQuestionDto }) question!: DuelRoundQuestionDto;
  @ApiProperty({ type: DuelPlayerRoundDto }) challenger!: DuelPlayerRoundDto;
  @ApiProperty({ type: DuelPlayerRoundDto }) opponent!: DuelPlayerRoundDto;
}

/** The duel record of extensions-v2 8.1, as one of its players sees it. */
export class DuelDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['challenge', 'matchmaking'] }) origin!: 'challenge' | 'matchmaking';
  @ApiProperty({ enum: DUEL_STATUSES }) status!: (typeof DUEL_STATUSES)[number];
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) course_id!: string | null;
  @ApiProperty({ enum: ['challenger', 'opponent'] }) my_role!: 'challenger' | 'opponent';
  @ApiProperty({ type: PersonDto, description: 'Anonymous when the caller may not see them (2.2)' })
  challenger!: PersonDto;
  @ApiProperty({ type: PersonDto, description: 'Anonymous when the caller may not see them (2.2)' })
  opponent!: PersonDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
  @ApiProperty({ type: DuelScoresDto }) scores!: DuelScoresDto;
  @ApiProperty({ type: DuelResultDto, nullable: true }) result!: DuelResultDto | null;
  @ApiProperty({ type: [DuelRoundDto], description: 'Filled only when finished; empty before' })
  rounds!: DuelRoundDto[];
}

export class DuelStatsDto {
  @ApiProperty() played!: number;
  @ApiProperty() won!: number;
  @ApiProperty() lost!: number;
  @ApiProperty() drawn!: number;
  @ApiProperty() current_win_streak!: number;
  @ApiProperty() best_win_streak!: number;
}

/** Payloads of the client events of the `/duels` namespace (8.3). */
export class QueueJoinDto {
  @IsOptional()
  @IsUUID('all')
  course_id?: string | null;
}

export class QueueLeaveDto {}

export class DuelIdDto {
  @IsUUID('all')
  duel_id!: string;
}

export class DuelAnswerDto {
  @IsUUID('all')
  duel_id!: string;

  @IsInt()
  @Min(1)
  @Max(5)
  round!: number;

  @IsArray()
  @ArrayMaxSize(10)
  @IsUUID('all', { each: true })
  option_ids!: string[];
}
