import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { IsTimeZone } from '@/core/http/validators';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const present = (_: object, v: unknown): boolean => v !== undefined;
const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;

/** Profile update: only the fields present are applied; `null` clears the nullable ones. */
export class UpdateProfileDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 255, description: 'Cannot be empty or null if sent' })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 160, description: 'null clears' })
  @ValidateIf(presentAndNotNull)
  @Transform(trim)
  @IsString()
  @MaxLength(160)
  headline?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 500, description: 'null clears' })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(500)
  bio?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 120, description: 'null clears' })
  @ValidateIf(presentAndNotNull)
  @Transform(trim)
  @IsString()
  @MaxLength(120)
  location?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 512,
    format: 'uri',
    description: 'http(s) URL; null clears',
  })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(512)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  avatar_url?: string | null;

  @ApiPropertyOptional({ enum: ['es', 'en'], description: 'null not allowed' })
  @ValidateIf(present)
  @IsIn(['es', 'en'])
  locale?: 'es' | 'en';

  @ApiPropertyOptional({ description: 'null not allowed' })
  @ValidateIf(present)
  @IsBoolean()
  public_profile?: boolean;

  @ApiPropertyOptional({
    example: 'Europe/Madrid',
    maxLength: 64,
    description:
      'IANA time zone as the tz database spells it: `UTC` or an area and a location such as `Europe/Madrid` (the web ' +
      'app sends the browser’s); ICU-only ids such as `PST` or `AET` are refused; null not allowed',
  })
  @ValidateIf(present)
  @IsTimeZone()
  time_zone?: string;
}
