import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

/** Optional fields may be left out, but not sent as null (unless the field says `null` clears it). */
const present = (_: object, v: unknown): boolean => v !== undefined;

export const DECK_KINDS = ['course', 'personal'] as const;
export type DeckKind = (typeof DECK_KINDS)[number];
export const SCHEDULERS = ['sm2', 'fsrs'] as const;
export const FSRS_STATES = ['new', 'learning', 'review', 'relearning'] as const;

export class DeckDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: DECK_KINDS }) kind!: DeckKind;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) course_id!: string | null;
  @ApiProperty({ description: 'A course deck’s title is its course’s title' }) title!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ minimum: 0 }) cards_count!: number;
  @ApiProperty({ minimum: 0, description: 'The caller’s cards due now (`due_at <= now`)' }) due_count!: number;
  @ApiProperty({ minimum: 0, description: 'The caller’s cards never reviewed (here)' }) new_count!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class Sm2StateDto {
  @ApiProperty({ minimum: 0 }) repetitions!: number;
  @ApiProperty({ example: 2.5, description: 'Exact to two decimals, never below 1.30' }) ease_factor!: number;
  @ApiProperty({ minimum: 0 }) interval_days!: number;
}

export class FsrsStateDto {
  @ApiProperty() stability!: number;
  @ApiProperty() difficulty!: number;
  @ApiProperty({ enum: FSRS_STATES }) state!: (typeof FSRS_STATES)[number];
  @ApiProperty({ minimum: 0 }) scheduled_days!: number;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Probability of recall now (ts-fsrs `get_retrievability`)' })
  retrievability!: number;
}

export class CardStateDto {
  @ApiProperty({ enum: SCHEDULERS }) scheduler!: (typeof SCHEDULERS)[number];
  @ApiProperty({ minimum: 0 }) reviews!: number;
  @ApiProperty({ minimum: 0, description: 'Grades below 3 given to a card answered correctly before' }) lapses!: number;
  @ApiProperty({ format: 'date-time' }) last_reviewed_at!: string;
  @ApiProperty({ format: 'date', description: 'Local date (the person’s zone)' }) due_on!: string;
  @ApiProperty({ format: 'date-time', description: 'Start of `due_on` in the person’s zone' }) due_at!: string;
  @ApiProperty({ type: Sm2StateDto, nullable: true }) sm2!: Sm2StateDto | null;
  @ApiProperty({ type: FsrsStateDto, nullable: true }) fsrs!: FsrsStateDto | null;
}

export class CardDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) deck_id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) lesson_id!: string | null;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() front_md!: string;
  @ApiProperty() back_md!: string;
  @ApiProperty({ description: 'Rendered without raw HTML and sanitized' }) front_html!: string;
  @ApiProperty({ description: 'Rendered without raw HTML and sanitized' }) back_html!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: CardStateDto, nullable: true, description: 'The caller’s state; null when never reviewed' })
  state!: CardStateDto | null;
}

export class CreateEditorCardDto {
  @ApiProperty({ minLength: 1, maxLength: 2000 }) @IsString() @Length(1, 2000) front_md!: string;
  @ApiProperty({ minLength: 1, maxLength: 2000 }) @IsString() @Length(1, 2000) back_md!: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'A lesson of this course' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsUUID()
  lesson_id?: string | null;
  @ApiPropertyOptional({ minimum: 1, maximum: 100000, description: 'Default: after the last card' })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(100000)
  position?: number;
}

export class UpdateEditorCardDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 2000 })
  @ValidateIf(present)
  @IsString()
  @Length(1, 2000)
  front_md?: string;
  @ApiPropertyOptional({ minLength: 1, maxLength: 2000 })
  @ValidateIf(present)
  @IsString()
  @Length(1, 2000)
  back_md?: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: '`null` clears it' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsUUID()
  lesson_id?: string | null;
  @ApiPropertyOptional({ minimum: 1, maximum: 100000 })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(100000)
  position?: number;
}

export class CreateCardDto {
  @ApiProperty({ minLength: 1, maxLength: 2000 }) @IsString() @Length(1, 2000) front_md!: string;
  @ApiProperty({ minLength: 1, maxLength: 2000 }) @IsString() @Length(1, 2000) back_md!: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100000, description: 'Default: after the last card' })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(100000)
  position?: number;
}

export class UpdateCardDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 2000 })
  @ValidateIf(present)
  @IsString()
  @Length(1, 2000)
  front_md?: string;
  @ApiPropertyOptional({ minLength: 1, maxLength: 2000 })
  @ValidateIf(present)
  @IsString()
  @Length(1, 2000)
  back_md?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100000 })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(100000)
  position?: number;
}

export class CreateDeckDto {
  @ApiProperty({ minLength: 1, maxLength: 120 }) @IsString() @Length(1, 120) title!: string;
  @ApiPropertyOptional({ maxLength: 500 }) @ValidateIf(present) @IsString() @MaxLength(500) description?: string;
}

export class UpdateDeckDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @ValidateIf(present)
  @IsString()
  @Length(1, 120)
  title?: string;
  @ApiPropertyOptional({ type: String, maxLength: 500, nullable: true, description: '`null` clears it' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(500)
  description?: string | null;
}

export class DeckListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DECK_KINDS }) @IsOptional() @IsIn(DECK_KINDS) kind?: DeckKind;
}

export class DueQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Study one deck' }) @IsOptional() @IsUUID() deck_id?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;
}

export class DueDto {
  @ApiProperty({ type: [CardDto], description: 'Due cards first (`due_at`, then id), then new cards in deck order' })
  items!: CardDto[];
  @ApiProperty({ minimum: 0 }) due_total!: number;
  @ApiProperty({ minimum: 0 }) new_total!: number;
  @ApiProperty({ minimum: 0, description: '`new_cards_per_day` minus the cards first reviewed today (here)' })
  new_remaining_today!: number;
}

export class FlashcardReviewInputDto {
  @ApiProperty({ minimum: 0, maximum: 5, description: 'SM-2 grade; clients with four buttons send 1, 3, 4, 5' })
  @IsInt()
  @Min(0)
  @Max(5)
  grade!: number;
  @ApiPropertyOptional({ format: 'uuid', description: 'Makes a retried review idempotent' })
  @ValidateIf(present)
  @IsUUID()
  client_review_id?: string;
  @ApiPropertyOptional({ minimum: 0, maximum: 600000 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(600000)
  duration_ms?: number;
}

export class FlashcardReviewDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) card_id!: string;
  @ApiProperty({ minimum: 0, maximum: 5 }) grade!: number;
  @ApiProperty({ enum: SCHEDULERS }) scheduler!: (typeof SCHEDULERS)[number];
  @ApiProperty({ format: 'date-time' }) reviewed_at!: string;
  @ApiProperty({ type: CardStateDto, description: 'The state after this review' }) state!: CardStateDto;
}

export class SettingsDto {
  @ApiProperty({ enum: SCHEDULERS, default: 'sm2' }) scheduler!: (typeof SCHEDULERS)[number];
  @ApiProperty({ minimum: 0.7, maximum: 0.97, default: 0.9 }) desired_retention!: number;
  @ApiProperty({ minimum: 0, maximum: 200, default: 20 }) new_cards_per_day!: number;
  @ApiProperty({
    description:
      'A change of scheduler is rescheduling the card states in the background: true until every state follows ' +
      'the new settings (a review meanwhile replays its own card first)',
  })
  rescheduling!: boolean;
}

export class SettingsUpdatedDto extends SettingsDto {
  @ApiProperty({
    minimum: 0,
    description: 'Card states this change recomputes from their review logs (in the background; 0 when none)',
  })
  rescheduled_cards!: number;
}

export class UpdateSettingsDto {
  @ApiPropertyOptional({ enum: SCHEDULERS })
  @ValidateIf(present)
  @IsIn(SCHEDULERS)
  scheduler?: (typeof SCHEDULERS)[number];
  @ApiPropertyOptional({ minimum: 0.7, maximum: 0.97, description: 'Two decimals at most' })
  @ValidateIf(present)
  @IsNumber({ maxDecimalPlaces: 2, allowNaN: false, allowInfinity: false })
  @Min(0.7)
  @Max(0.97)
  desired_retention?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 200 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(200)
  new_cards_per_day?: number;
}
