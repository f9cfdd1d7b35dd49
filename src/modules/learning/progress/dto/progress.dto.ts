import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsUUID, ValidateNested } from 'class-validator';
import { CourseCardDto, EnrollmentDto } from '@/modules/learning/courses';

export const MAX_ANSWERS = 50;
export const MAX_PICKS = 10;

export class QuizAnswerDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  question_id!: string;

  @ApiProperty({
    type: [String],
    format: 'uuid',
    maxItems: MAX_PICKS,
    description: 'The options chosen (empty: unanswered)',
  })
  @IsArray()
  @ArrayMaxSize(MAX_PICKS)
  @IsUUID('all', { each: true })
  option_ids!: string[];
}

export class QuizSubmissionInputDto {
  @ApiProperty({
    type: [QuizAnswerDto],
    maxItems: MAX_ANSWERS,
    description: 'At most one answer per question; questions left out count wrong',
  })
  @IsArray()
  @ArrayMaxSize(MAX_ANSWERS)
  @ValidateNested({ each: true })
  @Type(() => QuizAnswerDto)
  answers!: QuizAnswerDto[];
}

export class QuestionResultDto {
  @ApiProperty({ format: 'uuid' }) question_id!: string;
  @ApiProperty({ description: 'The chosen options are exactly the correct ones' }) correct!: boolean;
  @ApiProperty({ type: [String], format: 'uuid' }) correct_option_ids!: string[];
  @ApiProperty({ type: String, nullable: true }) explanation!: string | null;
}

export class QuizResultDto {
  @ApiProperty({ minimum: 0, maximum: 100, description: 'Share of right questions, rounded to an integer percent' })
  score!: number;
  @ApiProperty({ description: '`score >= passing_score`' }) passed!: boolean;
  @ApiProperty({ type: [QuestionResultDto] }) results!: QuestionResultDto[];
}

export class LessonScoreDto {
  @ApiProperty({ format: 'uuid' }) lesson_id!: string;
  @ApiProperty() lesson_title!: string;
  @ApiProperty({
    minimum: 0,
    maximum: 100,
    description:
      "The external tool's latest score (LTI AGS `scoreGiven / scoreMaximum`) as a percent, two decimals at most; " +
      'extra credit above the maximum counts as 100',
  })
  score!: number;
  @ApiProperty({ format: 'date-time', description: 'When the tool last sent a score' }) updated_at!: string;
}

export class ProgressItemDto extends EnrollmentDto {
  @ApiProperty({ type: CourseCardDto }) course!: CourseCardDto;
  @ApiProperty({
    type: [LessonScoreDto],
    description:
      'Lessons of the course an external tool (LTI) scored for the caller in this organization, in course order; ' +
      'empty when none',
  })
  lesson_scores!: LessonScoreDto[];
}

export class MyProgressDto {
  @ApiProperty({ type: [ProgressItemDto] }) items!: ProgressItemDto[];
}
