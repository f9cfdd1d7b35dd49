import { PersonDto } from '@/modules/tenancy/members';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import {
  FLAG_CODES,
  type FlagCode,
  PROCTORING_EVENT_TYPES,
  type ProctoringEventType,
  type QuestionKind,
} from '../exam-rules';
import { DATE_TIME, UserRefDto } from './exam-card.dto';
import { QUESTION_KINDS } from '@/modules/learning/editor';

export const SESSION_STATUSES = ['in_progress', 'submitted'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const REVIEW_STATUSES = ['none', 'pending', 'accepted', 'voided'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const DECISIONS = ['accept', 'void'] as const;
export type Decision = (typeof DECISIONS)[number];
export const MAX_EVENTS_PER_BATCH = 50;

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

// Inputs.

/**
 * Operations that take no body refuse any field: the server fixes every time itself, so a client's claim (a
 * `started_at`, a `submitted_at`) is a 422, never silently ignored.
 */
export class NoBodyDto {
  // class-validator takes a class without rules for an unknown value (422 for every call): this field, never sent
  // and absent from the OpenAPI description, is its one rule, so only the fields actually sent are refused.
  @Equals(undefined) readonly none?: undefined;
}

export class SaveAnswerDto {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    minItems: 0,
    maxItems: 10,
    description: 'The options chosen (an empty list clears the answer); each must be an option of this question',
  })
  @IsArray()
  @ArrayMaxSize(10)
  @IsUUID('all', { each: true })
  option_ids!: string[];

  @ApiProperty({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      "The client's counter for this question: a save whose `seq` is not above the stored one is ignored and the " +
      'stored answer returned, so a late retry never overwrites a newer answer',
  })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  seq!: number;
}

export class ProctoringEventInputDto {
  @ApiProperty({ enum: PROCTORING_EVENT_TYPES })
  @IsIn(PROCTORING_EVENT_TYPES)
  type!: ProctoringEventType;

  @ApiProperty({ format: 'date-time', description: "The client's time, kept as told; the server's time counts" })
  @Matches(DATE_TIME, { message: 'occurred_at must be an ISO 8601 date-time with Z or an offset' })
  @IsISO8601({ strict: true }, { message: 'occurred_at must be an ISO 8601 date-time with Z or an offset' })
  occurred_at!: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  detail?: string;
}

export class ProctoringEventsInputDto {
  @ApiProperty({ type: [ProctoringEventInputDto], minItems: 1, maxItems: MAX_EVENTS_PER_BATCH })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_EVENTS_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => ProctoringEventInputDto)
  events!: ProctoringEventInputDto[];
}

export class ReviewInputDto {
  @ApiProperty({ enum: DECISIONS, description: '`accept`: the score stands; `void`: score and pass are cancelled' })
  @IsIn(DECISIONS)
  decision!: Decision;

  @ApiProperty({ minLength: 1, maxLength: 500, description: 'Kept in the audit log and shown to staff' })
  @Transform(trim)
  @IsString()
  @Length(1, 500)
  reason!: string;

  @ApiPropertyOptional({ default: false, description: 'Only with `void`: the attempt is given back' })
  @IsOptional()
  @IsBoolean()
  allow_retake?: boolean;
}

export class SessionListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Sessions of this person' })
  @IsOptional()
  @IsUUID('all')
  user_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "Sessions of this cohort's students" })
  @IsOptional()
  @IsUUID('all')
  cohort_id?: string;

  @ApiPropertyOptional({ enum: SESSION_STATUSES })
  @IsOptional()
  @IsIn(SESSION_STATUSES)
  status?: SessionStatus;

  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  flagged?: boolean;

  @ApiPropertyOptional({ enum: REVIEW_STATUSES })
  @IsOptional()
  @IsIn(REVIEW_STATUSES)
  review_status?: ReviewStatus;
}

// Responses.

export class SessionOptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() text!: string;
}

export class SessionQuestionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() prompt!: string;
  @ApiProperty({ enum: QUESTION_KINDS }) kind!: QuestionKind;
  @ApiProperty({ type: [SessionOptionDto], description: 'Never says which are correct' })
  options!: SessionOptionDto[];
}

export class SavedAnswerDto {
  @ApiProperty({ format: 'uuid' }) question_id!: string;
  @ApiProperty({ type: [String], format: 'uuid' }) option_ids!: string[];
  @ApiProperty({ minimum: 0 }) seq!: number;
  @ApiProperty({ format: 'date-time', description: "The server's time of the save" }) saved_at!: string;
}

export class SessionResultDto {
  @ApiProperty({ minimum: 0, maximum: 100 }) score!: number;
  @ApiProperty() passed!: boolean;
}

export class CorrectionDto {
  @ApiProperty({ format: 'uuid' }) question_id!: string;
  @ApiProperty({ description: 'The chosen options were exactly the correct ones' }) correct!: boolean;
  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'The answer key: absent from the staff view of anyone but a platform admin',
  })
  correct_option_ids?: string[];
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The answer key: absent from the staff view of anyone but a platform admin',
  })
  explanation?: string | null;
}

export { PersonDto };

export class FlagDto {
  @ApiProperty({ enum: FLAG_CODES }) code!: FlagCode;
  @ApiProperty({ format: 'date-time' }) at!: string;
}

export class ReviewDto {
  @ApiProperty({ enum: DECISIONS }) decision!: Decision;
  @ApiProperty() reason!: string;
  @ApiProperty() allow_retake!: boolean;
  @ApiProperty({ type: UserRefDto }) reviewed_by!: UserRefDto;
  @ApiProperty({ format: 'date-time' }) reviewed_at!: string;
}

/**
 * A session. Its learner gets the learner view (`result` and `corrections` as the exam's `show_results` says, null
 * while in progress and for a voided session); staff get the staff view, which adds the fields marked so and carries
 * `result` and `corrections` once the session is closed (null while in progress), the corrections without the
 * answer keys (`correct_option_ids`, `explanation`) unless the caller is a platform admin.
 */
export class ExamSessionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) exam_id!: string;
  @ApiProperty({ minimum: 1 }) attempt!: number;
  @ApiProperty({ enum: SESSION_STATUSES }) status!: SessionStatus;
  @ApiProperty({ type: String, enum: ['learner', 'deadline'], nullable: true }) submitted_by!:
    'learner' | 'deadline' | null;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
  @ApiProperty({ format: 'date-time', description: 'Saves are accepted until 2 000 ms after it (network grace)' })
  deadline_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) submitted_at!: string | null;
  @ApiProperty({ format: 'date-time', description: "The server's clock: correct the client's own with it" })
  server_now!: string;
  @ApiProperty({ minimum: 0, description: '`max(0, deadline_at - server_now)`; 0 once closed' }) remaining_ms!: number;
  @ApiProperty({ type: [SessionQuestionDto], description: 'The drawn questions in this session’s order' })
  questions!: SessionQuestionDto[];
  @ApiProperty({ type: [SavedAnswerDto] }) answers!: SavedAnswerDto[];
  @ApiProperty() flagged!: boolean;
  @ApiProperty({ enum: REVIEW_STATUSES }) review_status!: ReviewStatus;
  @ApiProperty({ description: 'false for a session voided with `allow_retake`' }) counts_as_attempt!: boolean;
  @ApiProperty({ type: SessionResultDto, nullable: true }) result!: SessionResultDto | null;
  @ApiProperty({ type: [CorrectionDto], nullable: true }) corrections!: CorrectionDto[] | null;

  @ApiPropertyOptional({ type: PersonDto, description: 'Staff view only' }) person?: PersonDto;
  @ApiPropertyOptional({ minimum: 0, description: 'Staff view only: proctoring violations counted' })
  violations?: number;
  @ApiPropertyOptional({ type: [FlagDto], description: 'Staff view only' }) flags?: FlagDto[];
  @ApiPropertyOptional({
    minimum: 0,
    description: 'Staff view only: distinct client addresses (by their audit fingerprint) of the learner’s requests',
  })
  client_addresses_count?: number;
  @ApiPropertyOptional({ type: ReviewDto, nullable: true, description: 'Staff view only' }) review?: ReviewDto | null;
}

export class ProctoringEventsAcceptedDto {
  @ApiProperty({ minimum: 1 }) accepted!: number;
  @ApiProperty({ minimum: 0, description: 'The session’s violations after this batch' }) violations!: number;
  @ApiProperty() flagged!: boolean;
}

export class ProctoringEventDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: PROCTORING_EVENT_TYPES }) type!: ProctoringEventType;
  @ApiProperty({ format: 'date-time', description: "The client's claim" }) occurred_at!: string;
  @ApiProperty({ format: 'date-time', description: "The server's time (the one that counts)" }) received_at!: string;
  @ApiProperty({ type: String, nullable: true }) detail!: string | null;
  @ApiProperty({ description: 'Counted as a violation' }) counted!: boolean;
}
