import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { NOT_UUID_SHAPED } from '@/core/http/uuid';
import { PageQueryDto } from '@/core/http/pagination';
import { type Language, LANGUAGES, type Level, LEVELS } from '@/modules/learning/courses';
import { QUIZ_LIMITS } from '@/modules/learning/editor/quiz-rules';
import { QuestionDto, QuestionInputDto } from './question.dto';
import { SLUG_PATTERN } from '@/modules/learning/editor/slug';
import { LessonLtiDto, LessonLtiInputDto } from '@/modules/integrations/lti';

export const VISIBILITIES = ['public', 'restricted'] as const;
export const STATUSES = ['draft', 'published', 'unpublished'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export type CourseStatus = (typeof STATUSES)[number];

export const MAX_TAGS = 20;
export const MAX_ORGANIZATIONS = 1000;

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const lowerTrimEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v)) : value;
/** Optional fields may be omitted, but not sent as null (only `quiz` can be null: it removes the quiz). */
const present = (_: object, v: unknown): boolean => v !== undefined;

// Inputs.

export class QuizInputDto {
  @ApiProperty({ minimum: 0, maximum: 100, description: 'Score (percent) needed to pass' })
  @IsInt()
  @Min(0)
  @Max(100)
  passing_score!: number;

  @ApiProperty({ type: [QuestionInputDto], minItems: QUIZ_LIMITS.minQuestions, maxItems: QUIZ_LIMITS.maxQuestions })
  @IsArray()
  @ArrayMinSize(QUIZ_LIMITS.minQuestions)
  @ArrayMaxSize(QUIZ_LIMITS.maxQuestions)
  @ValidateNested({ each: true })
  @Type(() => QuestionInputDto)
  questions!: QuestionInputDto[];
}

export class CreateCourseDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Introducción a Python' })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiPropertyOptional({
    minLength: 3,
    maxLength: 80,
    pattern: SLUG_PATTERN.source,
    description: 'Derived from the title when absent (accents dropped; `-2`, `-3`... when taken). Not UUID-shaped.',
  })
  @ValidateIf(present)
  @IsString()
  @Length(3, 80)
  @Matches(SLUG_PATTERN, { message: 'slug must be lower-case letters and digits joined by single hyphens' })
  @Matches(NOT_UUID_SHAPED, {
    message: 'slug must not have the shape of a UUID',
  })
  slug?: string;

  @ApiPropertyOptional({ maxLength: 500, default: '' })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @MaxLength(500)
  summary?: string;

  @ApiPropertyOptional({ maxLength: 20000, default: '', description: 'Markdown (raw HTML is shown escaped)' })
  @ValidateIf(present)
  @IsString()
  @MaxLength(20000)
  description_md?: string;

  @ApiProperty({ enum: LANGUAGES })
  @IsIn(LANGUAGES)
  language!: Language;

  @ApiProperty({ enum: LEVELS })
  @IsIn(LEVELS)
  level!: Level;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_TAGS,
    default: [],
    description: 'Up to 20 tags of 1..40 characters, stored trimmed, lower-cased and without repeats',
  })
  @ValidateIf(present)
  @Transform(lowerTrimEach)
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsString({ each: true })
  @Length(1, 40, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ enum: VISIBILITIES, default: 'public' })
  @ValidateIf(present)
  @IsIn(VISIBILITIES)
  visibility?: Visibility;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_ORGANIZATIONS,
    default: [],
    description:
      'Organizations a `restricted` course is offered to (required, non-empty, for restricted); each must exist',
  })
  @ValidateIf(present)
  @IsArray()
  @ArrayMaxSize(MAX_ORGANIZATIONS)
  @IsUUID('all', { each: true })
  organization_ids?: string[];

  @ApiPropertyOptional({ default: false, description: 'Completing the course issues a course certificate' })
  @ValidateIf(present)
  @IsBoolean()
  issues_certificate?: boolean;

  @ApiPropertyOptional({ minimum: 0, maximum: 100000, default: 0 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(100000)
  estimated_minutes?: number;
}

/** Every field optional; the resulting course must follow the same rules as on creation. */
export class UpdateCourseDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title?: string;

  @ApiPropertyOptional({ minLength: 3, maxLength: 80, pattern: SLUG_PATTERN.source })
  @ValidateIf(present)
  @IsString()
  @Length(3, 80)
  @Matches(SLUG_PATTERN, { message: 'slug must be lower-case letters and digits joined by single hyphens' })
  @Matches(NOT_UUID_SHAPED, {
    message: 'slug must not have the shape of a UUID',
  })
  slug?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @MaxLength(500)
  summary?: string;

  @ApiPropertyOptional({ maxLength: 20000 })
  @ValidateIf(present)
  @IsString()
  @MaxLength(20000)
  description_md?: string;

  @ApiPropertyOptional({ enum: LANGUAGES, description: "Also the language of the course's lessons (search)" })
  @ValidateIf(present)
  @IsIn(LANGUAGES)
  language?: Language;

  @ApiPropertyOptional({ enum: LEVELS })
  @ValidateIf(present)
  @IsIn(LEVELS)
  level?: Level;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_TAGS })
  @ValidateIf(present)
  @Transform(lowerTrimEach)
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsString({ each: true })
  @Length(1, 40, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ enum: VISIBILITIES })
  @ValidateIf(present)
  @IsIn(VISIBILITIES)
  visibility?: Visibility;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_ORGANIZATIONS,
    description: 'Replaces the list',
  })
  @ValidateIf(present)
  @IsArray()
  @ArrayMaxSize(MAX_ORGANIZATIONS)
  @IsUUID('all', { each: true })
  organization_ids?: string[];

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  issues_certificate?: boolean;

  @ApiPropertyOptional({ minimum: 0, maximum: 100000 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(100000)
  estimated_minutes?: number;
}

export class EditorCourseQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: STATUSES })
  @IsOptional()
  @IsIn(STATUSES)
  status?: CourseStatus;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Full text, or an exact slug' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  q?: string;
}

export class CreateLessonDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiPropertyOptional({ maxLength: 100000, default: '', description: 'Markdown' })
  @ValidateIf(present)
  @IsString()
  @MaxLength(100000)
  content_md?: string;

  @ApiPropertyOptional({
    minimum: 1,
    description: 'Where to insert it (1..n+1); the lesson there and the later ones move down. Absent: appended.',
  })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  position?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10000, default: 0 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(10000)
  estimated_minutes?: number;

  @ApiPropertyOptional({ type: QuizInputDto })
  @ValidateIf(present)
  @ValidateNested()
  @Type(() => QuizInputDto)
  quiz?: QuizInputDto;

  @ApiPropertyOptional({ type: LessonLtiInputDto, description: 'The external tool the lesson launches (LTI 1.3)' })
  @ValidateIf(present)
  @ValidateNested()
  @Type(() => LessonLtiInputDto)
  lti?: LessonLtiInputDto;
}

export class UpdateLessonDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title?: string;

  @ApiPropertyOptional({ maxLength: 100000 })
  @ValidateIf(present)
  @IsString()
  @MaxLength(100000)
  content_md?: string;

  @ApiPropertyOptional({ minimum: 1, description: 'Moves the lesson (1..n); the lessons in between shift by one' })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  position?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10000 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(10000)
  estimated_minutes?: number;

  @ApiPropertyOptional({
    type: QuizInputDto,
    nullable: true,
    description:
      'Replaces the quiz (questions and options get new ids; earlier passes still count); null removes it and its ' +
      'submissions',
  })
  @ValidateIf((_o, v) => v !== undefined && v !== null)
  @ValidateNested()
  @Type(() => QuizInputDto)
  quiz?: QuizInputDto | null;

  @ApiPropertyOptional({ type: LessonLtiInputDto, nullable: true, description: 'The external tool; null removes it' })
  @ValidateIf((_: object, v: unknown) => v !== undefined && v !== null)
  @ValidateNested()
  @Type(() => LessonLtiInputDto)
  lti?: LessonLtiInputDto | null;
}

// Responses.

export class EditorQuizDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 0, maximum: 100 }) passing_score!: number;
  @ApiProperty({ type: [QuestionDto] }) questions!: QuestionDto[];
}

export class EditorLessonDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() title!: string;
  @ApiProperty() content_md!: string;
  @ApiProperty({ minimum: 0 }) estimated_minutes!: number;
  @ApiProperty({ type: EditorQuizDto, nullable: true, description: 'With the answers' }) quiz!: EditorQuizDto | null;
  @ApiProperty({ type: LessonLtiDto, nullable: true, description: 'The external tool the lesson launches' })
  lti!: LessonLtiDto | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class EditorCourseSummaryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() slug!: string;
  @ApiProperty() title!: string;
  @ApiProperty() summary!: string;
  @ApiProperty({ enum: LANGUAGES }) language!: Language;
  @ApiProperty({ enum: LEVELS }) level!: Level;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ enum: VISIBILITIES }) visibility!: Visibility;
  @ApiProperty({ enum: STATUSES }) status!: CourseStatus;
  @ApiProperty() issues_certificate!: boolean;
  @ApiProperty({ minimum: 0 }) estimated_minutes!: number;
  @ApiProperty({ minimum: 0 }) lessons_count!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) published_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class EditorCourseDto extends EditorCourseSummaryDto {
  @ApiProperty() description_md!: string;
  @ApiProperty({ type: [String], format: 'uuid' }) organization_ids!: string[];
  @ApiProperty({ type: [EditorLessonDto] }) lessons!: EditorLessonDto[];
}

export class SeoRebuildDto {
  @ApiProperty({ minimum: 0, description: 'Pages written (new or changed)' }) built!: number;
  @ApiProperty({ minimum: 0, description: 'Pages already up to date (not rewritten)' }) skipped!: number;
  @ApiProperty({ type: [String], description: 'Slugs of the pages written' }) slugs!: string[];
}
