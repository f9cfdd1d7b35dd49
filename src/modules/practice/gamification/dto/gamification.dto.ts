import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, ValidateIf } from 'class-validator';

export class BadgeProgressDto {
  @ApiProperty() current!: number;
  @ApiProperty() target!: number;
}

export class GamificationBadgeDto {
  @ApiProperty({ example: 'first_lesson', description: 'A system code, or `program-<path_id>`' }) code!: string;
  @ApiProperty({ enum: ['system', 'program'] }) kind!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, nullable: true, description: 'A name the web app maps to artwork' }) icon!:
    string | null;
  @ApiProperty() earned!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) earned_at!: string | null;
  @ApiProperty({ type: BadgeProgressDto, nullable: true }) progress!: BadgeProgressDto | null;
}

export class BadgeListDto {
  @ApiProperty({ type: [GamificationBadgeDto] }) items!: GamificationBadgeDto[];
}

export class TitleRequirementDto {
  @ApiProperty({ enum: ['level', 'badge'] }) type!: string;
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string' }], description: 'A level, or a badge code' })
  value!: number | string;
}

export class TitleDto {
  @ApiProperty() code!: string;
  @ApiProperty() name!: string;
  @ApiProperty() unlocked!: boolean;
  @ApiProperty({ type: TitleRequirementDto }) requirement!: TitleRequirementDto;
}

export class TitleListDto {
  @ApiProperty({ type: String, nullable: true }) current!: string | null;
  @ApiProperty({ type: [TitleDto] }) items!: TitleDto[];
}

export class SetTitleDto {
  @ApiProperty({ type: String, nullable: true, description: 'A title code, or null to show none' })
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(64)
  code!: string | null;
}

export class CurrentTitleDto {
  @ApiProperty({ type: String, nullable: true }) current!: string | null;
}

export class MissionDto {
  @ApiProperty({ example: 'daily_lesson-2026-11-23' }) id!: string;
  @ApiProperty() code!: string;
  @ApiProperty({ enum: ['day', 'week'] }) period!: string;
  @ApiProperty({ example: '2026-11-23' }) period_key!: string;
  @ApiProperty() title!: string;
  @ApiProperty() description!: string;
  @ApiProperty() target!: number;
  @ApiProperty({ description: 'Counted inside the period, at most `target`' }) progress!: number;
  @ApiProperty() completed!: boolean;
  @ApiProperty() claimed!: boolean;
  @ApiProperty() reward_xp!: number;
  @ApiProperty({ format: 'date-time' }) ends_at!: string;
  @ApiProperty({ format: 'date-time' }) claimable_until!: string;
}

export class MissionListDto {
  @ApiProperty({ type: [MissionDto] }) items!: MissionDto[];
}

export class XpAwardDto {
  @ApiProperty() awarded!: number;
  @ApiProperty({ description: 'XP in this organization after the award' }) total!: number;
}

export class MissionClaimDto {
  @ApiProperty({ type: MissionDto }) mission!: MissionDto;
  @ApiProperty({ type: XpAwardDto }) xp!: XpAwardDto;
}

export class DailyRewardDto {
  @ApiProperty() claimed_today!: boolean;
  @ApiProperty({ description: 'Days in a row claimed, today included when claimed (0 when the run is broken)' })
  consecutive_days!: number;
  @ApiProperty({ description: 'The amount of the next claim' }) next_amount!: number;
  @ApiProperty({ format: 'date-time', description: 'The next local midnight when claimed today, else now' })
  next_claim_at!: string;
}

export class DailyRewardClaimDto {
  @ApiProperty() amount!: number;
  @ApiProperty() consecutive_days!: number;
  @ApiProperty() xp_total!: number;
}
