import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { LearnerLessonLtiDto } from '@/modules/integrations/lti';

export const LANGUAGES = ['es', 'en'] as const;
export const LEVELS = ['beginner', 'intermediate', 'advanced'] as const;
export type Language = (typeof LANGUAGES)[number];
export type Level = (typeof LEVELS)[number];

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const trimLower = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;

export class RatingSummaryDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 5,
    example: 4.3,
    description: 'Mean of the stars, one decimal; null while nobody has rated the course',
  })
  average!: number | null;
  @ApiProperty({ minimum: 0, example: 12 }) count!: number;
}

export class EnrollmentProgressDto {
  @ApiProperty({ minimum: 0 }) completed_lessons!: number;
  @ApiProperty({ minimum: 0 }) total_lessons!: number;
  @ApiProperty({ minimum: 0, maximum: 100, description: 'completed_lessons / total_lessons, rounded to an integer' })
  percent!: number;
}

/** The exams a course requires for its completion (extensions-v2 9.8) and how many of them the person passed. */
export class EnrollmentExamsDto {
  @ApiProperty({ minimum: 0, description: 'Published exams of the course marked required for completion' })
  required!: number;
  @ApiProperty({ minimum: 0, description: 'Of those, passed here (submitted, passed, not voided nor awaiting review)' })
  passed!: number;
}

/** A person's enrollment in a course inside one organization. */
export class EnrollmentDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty({ enum: ['active', 'completed'] }) status!: 'active' | 'completed';
  @ApiProperty({ type: EnrollmentProgressDto }) progress!: EnrollmentProgressDto;
  @ApiProperty({
    type: EnrollmentExamsDto,
    description:
      'The course completes when every lesson is completed and every required exam is passed, at whichever comes last',
  })
  exams!: EnrollmentExamsDto;
  @ApiProperty({ format: 'date-time' }) enrolled_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at!: string | null;
  @ApiProperty({ format: 'date-time', description: 'Last enrollment, completion or quiz submission' })
  last_activity_at!: string;
}

export class CourseCardDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'introduccion-a-python' }) slug!: string;
  @ApiProperty({ example: 'Introducción a Python' }) title!: string;
  @ApiProperty() summary!: string;
  @ApiProperty({ enum: LANGUAGES }) language!: Language;
  @ApiProperty({ enum: LEVELS }) level!: Level;
  @ApiProperty({ type: [String], example: ['python', 'programación'] }) tags!: string[];
  @ApiProperty({ minimum: 0 }) lessons_count!: number;
  @ApiProperty({ minimum: 0 }) estimated_minutes!: number;
  @ApiProperty({ type: RatingSummaryDto }) rating!: RatingSummaryDto;
  @ApiProperty({ description: 'The caller is enrolled in this course in this organization' }) enrolled!: boolean;
}

export class LessonOutlineDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() title!: string;
  @ApiProperty({ minimum: 0 }) estimated_minutes!: number;
  @ApiProperty() has_quiz!: boolean;
  @ApiProperty({ description: 'The caller completed this lesson (false when not enrolled)' }) completed!: boolean;
}

export class CourseDetailDto extends CourseCardDto {
  @ApiProperty({ description: 'Markdown' }) description_md!: string;
  @ApiProperty() issues_certificate!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) published_at!: string | null;
  @ApiProperty({
    description:
      'Whether the course is in the catalog of this organization now (false for an enrolled learner of a course ' +
      'that was unpublished or is no longer offered to the organization)',
  })
  available!: boolean;
  @ApiProperty({ type: [LessonOutlineDto] }) lessons!: LessonOutlineDto[];
  @ApiProperty({ type: EnrollmentDto, nullable: true, description: "The caller's enrollment, or null" })
  progress!: EnrollmentDto | null;
}

export class LearnerQuizOptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() text!: string;
}

export class LearnerQuizQuestionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() prompt!: string;
  @ApiProperty({
    enum: ['single', 'multiple', 'true_false'],
    description: '`single` and `true_false`: pick one option; `multiple`: pick every correct option',
  })
  kind!: 'single' | 'multiple' | 'true_false';
  @ApiProperty({ type: [LearnerQuizOptionDto] }) options!: LearnerQuizOptionDto[];
}

/** A quiz as a learner sees it: no correct flags, no explanations. */
export class LearnerQuizDto {
  @ApiProperty({ minimum: 0, maximum: 100 }) passing_score!: number;
  @ApiProperty({ type: [LearnerQuizQuestionDto] }) questions!: LearnerQuizQuestionDto[];
}

export class LessonDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() title!: string;
  @ApiProperty({ description: 'Markdown' }) content_md!: string;
  @ApiProperty({ minimum: 0 }) estimated_minutes!: number;
  @ApiProperty() completed!: boolean;
  @ApiProperty({ type: LearnerQuizDto, nullable: true }) quiz!: LearnerQuizDto | null;
  @ApiProperty({
    type: LearnerLessonLtiDto,
    nullable: true,
    description: 'The external tool the lesson launches (LTI)',
  })
  lti!: LearnerLessonLtiDto | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) previous_lesson_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) next_lesson_id!: string | null;
}

export class CatalogQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description: 'Full text (Spanish and English stemming, accent-insensitive; web-search syntax)',
  })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  q?: string;

  @ApiPropertyOptional({ enum: LANGUAGES })
  @IsOptional()
  @IsIn(LANGUAGES)
  language?: Language;

  @ApiPropertyOptional({ enum: LEVELS })
  @IsOptional()
  @IsIn(LEVELS)
  level?: Level;

  @ApiPropertyOptional({ minLength: 1, maxLength: 40, description: 'Courses carrying this tag (case-insensitive)' })
  @IsOptional()
  @Transform(trimLower)
  @IsString()
  @Length(1, 40)
  tag?: string;
}

export class RateCourseDto {
  @ApiProperty({ minimum: 1, maximum: 5 })
  @IsInt()
  @Min(1)
  @Max(5)
  stars!: number;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 1000 })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(1000)
  comment?: string | null;
}

export class RatingDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty({ minimum: 1, maximum: 5 }) stars!: number;
  @ApiProperty({ type: String, nullable: true }) comment!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}
