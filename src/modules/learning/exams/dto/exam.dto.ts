import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { QuestionDto, QuestionInputDto } from '@/modules/learning/editor';
import { SHOW_RESULTS, type ShowResults } from '../exam-rules';

export const EXAM_LIMITS = {
  minPool: 1,
  maxPool: 500,
  maxPerAttempt: 200,
  maxExamsPerCourse: 20,
} as const;
export const EXAM_STATUSES = ['draft', 'published'] as const;
export type ExamStatus = (typeof EXAM_STATUSES)[number];

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
/** Optional fields may be left out, but not sent as null. */
const present = (_: object, v: unknown): boolean => v !== undefined;

// Inputs.

export class ProctoringInputDto {
  @ApiPropertyOptional({ default: false, description: 'Fullscreen exits count as violations' })
  @ValidateIf(present)
  @IsBoolean()
  fullscreen_required?: boolean;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 100,
    default: 3,
    description: 'The session is flagged `focus_limit_exceeded` when its violations exceed this',
  })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(100)
  max_focus_losses?: number;

  @ApiPropertyOptional({ default: true, description: 'A paste flags the session `paste_detected`' })
  @ValidateIf(present)
  @IsBoolean()
  flag_paste?: boolean;
}

export class CreateExamDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiPropertyOptional({ maxLength: 20000, default: '', description: 'Markdown, shown before the start' })
  @ValidateIf(present)
  @IsString()
  @MaxLength(20000)
  instructions_md?: string;

  @ApiProperty({ minimum: 1, maximum: 600 })
  @IsInt()
  @Min(1)
  @Max(600)
  duration_minutes!: number;

  @ApiProperty({ minimum: 0, maximum: 100, description: 'Score (percent) needed to pass' })
  @IsInt()
  @Min(0)
  @Max(100)
  passing_score!: number;

  @ApiProperty({ minimum: 1, maximum: EXAM_LIMITS.maxPerAttempt, description: 'At most the pool size (else 422)' })
  @IsInt()
  @Min(1)
  @Max(EXAM_LIMITS.maxPerAttempt)
  questions_per_attempt!: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 10, default: 1 })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(10)
  max_attempts?: number;

  @ApiPropertyOptional({ default: true })
  @ValidateIf(present)
  @IsBoolean()
  shuffle_questions?: boolean;

  @ApiPropertyOptional({ default: true })
  @ValidateIf(present)
  @IsBoolean()
  shuffle_options?: boolean;

  @ApiPropertyOptional({
    enum: SHOW_RESULTS,
    default: 'score',
    description: 'What a learner sees after submitting: nothing, score and pass, or also the corrections',
  })
  @ValidateIf(present)
  @IsIn(SHOW_RESULTS)
  show_results?: ShowResults;

  @ApiPropertyOptional({
    default: false,
    description: 'While published, completing the course also needs this exam passed (extensions-v2 9.8)',
  })
  @ValidateIf(present)
  @IsBoolean()
  required_for_completion?: boolean;

  @ApiPropertyOptional({ type: ProctoringInputDto })
  @ValidateIf(present)
  @ValidateNested()
  @Type(() => ProctoringInputDto)
  proctoring?: ProctoringInputDto;

  @ApiPropertyOptional({ enum: EXAM_STATUSES, default: 'draft' })
  @ValidateIf(present)
  @IsIn(EXAM_STATUSES)
  status?: ExamStatus;

  @ApiProperty({ type: [QuestionInputDto], minItems: EXAM_LIMITS.minPool, maxItems: EXAM_LIMITS.maxPool })
  @IsArray()
  @ArrayMinSize(EXAM_LIMITS.minPool)
  @ArrayMaxSize(EXAM_LIMITS.maxPool)
  @ValidateNested({ each: true })
  @Type(() => QuestionInputDto)
  questions!: QuestionInputDto[];
}

/** Every field optional; the resulting exam must follow the rules of creation. `questions` replaces the pool. */
export class UpdateExamDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title?: string;

  @ApiPropertyOptional({ maxLength: 20000 })
  @ValidateIf(present)
  @IsString()
  @MaxLength(20000)
  instructions_md?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 600 })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(600)
  duration_minutes?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 100 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(100)
  passing_score?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: EXAM_LIMITS.maxPerAttempt })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(EXAM_LIMITS.maxPerAttempt)
  questions_per_attempt?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 10 })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(10)
  max_attempts?: number;

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  shuffle_questions?: boolean;

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  shuffle_options?: boolean;

  @ApiPropertyOptional({ enum: SHOW_RESULTS })
  @ValidateIf(present)
  @IsIn(SHOW_RESULTS)
  show_results?: ShowResults;

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  required_for_completion?: boolean;

  @ApiPropertyOptional({ type: ProctoringInputDto, description: 'Keys left out keep their value' })
  @ValidateIf(present)
  @ValidateNested()
  @Type(() => ProctoringInputDto)
  proctoring?: ProctoringInputDto;

  @ApiPropertyOptional({ enum: EXAM_STATUSES, description: 'Back to `draft` unpublishes it' })
  @ValidateIf(present)
  @IsIn(EXAM_STATUSES)
  status?: ExamStatus;

  @ApiPropertyOptional({
    type: [QuestionInputDto],
    minItems: EXAM_LIMITS.minPool,
    maxItems: EXAM_LIMITS.maxPool,
    description: 'Replaces the pool (new question and option ids); sessions already started keep their snapshot',
  })
  @ValidateIf(present)
  @IsArray()
  @ArrayMinSize(EXAM_LIMITS.minPool)
  @ArrayMaxSize(EXAM_LIMITS.maxPool)
  @ValidateNested({ each: true })
  @Type(() => QuestionInputDto)
  questions?: QuestionInputDto[];
}

// Responses.

export class ProctoringDto {
  @ApiProperty() fullscreen_required!: boolean;
  @ApiProperty({ minimum: 0, maximum: 100 }) max_focus_losses!: number;
  @ApiProperty() flag_paste!: boolean;
}

/** The exam as its editors see it: every setting and the pool with its answers. */
export class ExamDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() instructions_md!: string;
  @ApiProperty({ minimum: 1, maximum: 600 }) duration_minutes!: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) passing_score!: number;
  @ApiProperty({ minimum: 1, maximum: EXAM_LIMITS.maxPerAttempt }) questions_per_attempt!: number;
  @ApiProperty({ minimum: 1, maximum: 10 }) max_attempts!: number;
  @ApiProperty() shuffle_questions!: boolean;
  @ApiProperty() shuffle_options!: boolean;
  @ApiProperty({ enum: SHOW_RESULTS }) show_results!: ShowResults;
  @ApiProperty() required_for_completion!: boolean;
  @ApiProperty({ type: ProctoringDto }) proctoring!: ProctoringDto;
  @ApiProperty({ enum: EXAM_STATUSES }) status!: ExamStatus;
  @ApiProperty({ type: [QuestionDto], description: 'The pool, with the correct options' })
  questions!: QuestionDto[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class ExamListDto {
  @ApiProperty({ type: [ExamDto], maxItems: EXAM_LIMITS.maxExamsPerCourse }) items!: ExamDto[];
}
