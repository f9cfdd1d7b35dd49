import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

export const RESULT_TYPES = ['course', 'lesson'] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

export class SearchQueryDto extends PageQueryDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 200,
    description: 'Words to find (web-search syntax: "quoted phrase", or, -excluded)',
    example: 'programación python',
  })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  q!: string;

  @ApiPropertyOptional({ enum: RESULT_TYPES, description: 'Only courses or only lessons (default both)' })
  @IsOptional()
  @IsIn(RESULT_TYPES)
  type?: ResultType;
}

export class SearchResultDto {
  @ApiProperty({ enum: RESULT_TYPES }) type!: ResultType;
  @ApiProperty({ format: 'uuid', description: 'The course or lesson id' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The course (itself, for a course)' }) course_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty({
    description:
      "Plain text around the matches, with each matched word (or run of words) wrapped in `[` and `]`; the text's " +
      'own square brackets appear as parentheses and markdown syntax is removed. Render it as text, never as HTML.',
    example: 'Aprende a [programar] en Python desde cero …',
  })
  snippet!: string;
  @ApiProperty({ description: 'Relevance (ts_rank_cd normalized to 0..1; title matches weigh most)', example: 0.42 })
  score!: number;
}
