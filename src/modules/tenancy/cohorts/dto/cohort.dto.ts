import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsISO8601, IsOptional, IsString, IsUUID, Length, Matches, ValidateIf } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const present = (_: object, v: unknown): boolean => v !== undefined;
const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;

/** A calendar day, `YYYY-MM-DD`, that exists (2026-02-30 does not). */
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayMessage = (field: string) => ({ message: `${field} must be a date YYYY-MM-DD` });

export const COHORT_ROLES = ['student', 'teacher'] as const;

export class CohortTeacherDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ nullable: true, type: String, description: 'Display name; null when the person has not set one' })
  name!: string | null;
}

export class CohortDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Grupo A 2026' }) name!: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) institute_id!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date', example: '2026-09-01' }) starts_on!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date', example: '2027-06-30' }) ends_on!: string | null;
  @ApiProperty({ minimum: 0, description: 'Students and teachers of the cohort' }) members_count!: number;
  @ApiProperty({ type: [CohortTeacherDto] }) teachers!: CohortTeacherDto[];
}

export class CohortListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the cohorts of this institute' })
  @IsOptional()
  @IsUUID()
  institute_id?: string;

  @ApiPropertyOptional({ maxLength: 120, description: 'Name contains (case-insensitive); empty means no filter' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() || undefined : value))
  @IsString()
  @Length(1, 120)
  q?: string;
}

export class CreateCohortDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Grupo A 2026' })
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'uuid',
    description: 'An institute linked to this organization (see `GET /api/v1/institutes`)',
  })
  @ValidateIf(presentAndNotNull)
  @IsUUID()
  institute_id?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'date', example: '2026-09-01' })
  @ValidateIf(presentAndNotNull)
  @Matches(DAY, dayMessage('starts_on'))
  @IsISO8601({ strict: true }, dayMessage('starts_on'))
  starts_on?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'date',
    example: '2027-06-30',
    description: 'Not before `starts_on`',
  })
  @ValidateIf(presentAndNotNull)
  @Matches(DAY, dayMessage('ends_on'))
  @IsISO8601({ strict: true }, dayMessage('ends_on'))
  ends_on?: string | null;
}

/** Only the fields present are applied; `null` clears the nullable ones. */
export class UpdateCohortDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' })
  @ValidateIf(presentAndNotNull)
  @IsUUID()
  institute_id?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'date' })
  @ValidateIf(presentAndNotNull)
  @Matches(DAY, dayMessage('starts_on'))
  @IsISO8601({ strict: true }, dayMessage('starts_on'))
  starts_on?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'date' })
  @ValidateIf(presentAndNotNull)
  @Matches(DAY, dayMessage('ends_on'))
  @IsISO8601({ strict: true }, dayMessage('ends_on'))
  ends_on?: string | null;
}

export class AddCohortMemberDto {
  @ApiProperty({ format: 'uuid', description: 'A member of the organization' })
  @IsUUID()
  user_id!: string;

  @ApiProperty({ enum: COHORT_ROLES })
  @IsIn(COHORT_ROLES)
  role!: 'student' | 'teacher';
}

export class CohortMemberDto {
  @ApiProperty({ format: 'uuid' }) cohort_id!: string;
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ enum: COHORT_ROLES }) role!: 'student' | 'teacher';
}
