import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { CohortDto } from '@/modules/tenancy/cohorts';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
/** Trimmed; an empty optional text is no text. */
const trimToNull = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim() || null : value;
const present = (_: object, v: unknown): boolean => v !== undefined;
const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;

export const INSTITUTE_LINKS =
  'An institute is linked to an organization when it is the organization’s legacy institute, when one of the ' +
  'organization’s cohorts belongs to it, or when the organization created it (`POST /api/v1/institutes`).';

@ApiSchema({ description: `An institute (school, faculty, campus) that cohorts belong to. ${INSTITUTE_LINKS}` })
export class InstituteDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Facultad de Ciencias' }) name!: string;
  @ApiProperty({ nullable: true, type: String, maxLength: 120 }) city!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'email', maxLength: 254 }) contact_email!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uri', maxLength: 512 }) website!: string | null;
  @ApiProperty({
    minimum: 0,
    description: 'Cohorts of this institute in the organization of the request (only its own)',
  })
  cohorts_count!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiPropertyOptional({
    type: [CohortDto],
    description: 'Only on the single-institute read: its cohorts in the organization of the request',
  })
  cohorts?: CohortDto[];
}

export class InstituteListDto {
  @ApiProperty({ type: [InstituteDto] }) institutes!: InstituteDto[];
}

export class CreateInstituteDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Facultad de Ciencias' })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 120 })
  @Transform(trimToNull)
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(120)
  city?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'email', maxLength: 254 })
  @Transform(trimToNull)
  @ValidateIf(presentAndNotNull)
  @MaxLength(254)
  @IsEmail()
  contact_email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uri', maxLength: 512, description: 'http or https' })
  @Transform(trimToNull)
  @ValidateIf(presentAndNotNull)
  @MaxLength(512)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  website?: string | null;
}

/** Only the fields present are applied; `null` clears the nullable ones. */
export class UpdateInstituteDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 120 })
  @Transform(trimToNull)
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(120)
  city?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'email', maxLength: 254 })
  @Transform(trimToNull)
  @ValidateIf(presentAndNotNull)
  @MaxLength(254)
  @IsEmail()
  contact_email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uri', maxLength: 512, description: 'http or https' })
  @Transform(trimToNull)
  @ValidateIf(presentAndNotNull)
  @MaxLength(512)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  website?: string | null;
}
