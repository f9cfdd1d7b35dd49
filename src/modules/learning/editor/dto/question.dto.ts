import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { QUESTION_KINDS, QUIZ_LIMITS, type QuestionKind } from '../quiz-rules';

/**
 * The one shape of an authored question, shared by lesson quizzes (editor) and exam pools (exams): the same input
 * fields and limits, and the same answer-bearing response for the people who author them.
 */

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

export class QuestionOptionInputDto {
  @ApiProperty({ minLength: 1, maxLength: 500 })
  @Transform(trim)
  @IsString()
  @Length(1, 500)
  text!: string;

  @ApiProperty()
  @IsBoolean()
  correct!: boolean;
}

export class QuestionInputDto {
  @ApiProperty({ minLength: 1, maxLength: 2000 })
  @Transform(trim)
  @IsString()
  @Length(1, 2000)
  prompt!: string;

  @ApiProperty({
    enum: QUESTION_KINDS,
    description:
      '`single`: exactly one correct option; `multiple`: at least one; `true_false`: two options, one correct',
  })
  @IsIn(QUESTION_KINDS)
  kind!: QuestionKind;

  @ApiProperty({ type: [QuestionOptionInputDto], minItems: QUIZ_LIMITS.minOptions, maxItems: QUIZ_LIMITS.maxOptions })
  @IsArray()
  @ArrayMinSize(QUIZ_LIMITS.minOptions)
  @ArrayMaxSize(QUIZ_LIMITS.maxOptions)
  @ValidateNested({ each: true })
  @Type(() => QuestionOptionInputDto)
  options!: QuestionOptionInputDto[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 2000,
    description:
      "Shown to the learner after answering: after a quiz submission; in an exam's corrections when `show_results` " +
      'is `full`',
  })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(2000)
  explanation?: string | null;
}

export class QuestionOptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() text!: string;
  @ApiProperty() correct!: boolean;
}

/** A question as its authors see it: with the correct options and the explanation. */
export class QuestionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minimum: 1 }) position!: number;
  @ApiProperty() prompt!: string;
  @ApiProperty({ enum: QUESTION_KINDS }) kind!: QuestionKind;
  @ApiProperty({ type: String, nullable: true }) explanation!: string | null;
  @ApiProperty({ type: [QuestionOptionDto] }) options!: QuestionOptionDto[];
}
