import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

export const XAPI_LIMIT_MAX = 500;
export const XAPI_LIMIT_DEFAULT = 100;

export class StatementQueryDto {
  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: 40,
    description: 'Only statements stored after this instant (exclusive)',
  })
  @IsOptional()
  @MaxLength(40)
  @IsISO8601({ strict: true })
  since?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: 40,
    description: 'Only statements stored at or before this instant',
  })
  @IsOptional()
  @MaxLength(40)
  @IsISO8601({ strict: true })
  until?: string;

  @ApiPropertyOptional({ maxLength: 2048, description: 'A verb IRI, e.g. `http://adlnet.gov/expapi/verbs/completed`' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  verb?: string;

  @ApiPropertyOptional({ format: 'uuid', maxLength: 36, description: 'One person (the `account.name` of the actor)' })
  @IsOptional()
  @IsUUID()
  user_id?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: XAPI_LIMIT_MAX, default: XAPI_LIMIT_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(XAPI_LIMIT_MAX)
  limit: number = XAPI_LIMIT_DEFAULT;

  @ApiPropertyOptional({ maxLength: 200, description: 'The position of the next page, from `more`' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class StatementResultDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    description: 'xAPI 1.0.3 statements, ascending by `stored` then `id`',
  })
  statements!: Record<string, unknown>[];

  @ApiProperty({ description: 'The relative URL of the next page, or "" at the end' })
  more!: string;
}
