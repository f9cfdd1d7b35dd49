import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUrl, Matches, MaxLength, ValidateIf } from 'class-validator';
import { CertificateTemplateDto } from './certificate.dto';

const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;

/** The template fields of interface-v1 section 2, each nullable (absent: null). */
export class PutCertificateTemplateDto {
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 200 })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(200)
  issuer_name?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 200 })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(200)
  signature_name?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 200 })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(200)
  signature_title?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 512, format: 'uri', description: 'http(s)' })
  @ValidateIf(presentAndNotNull)
  @MaxLength(512)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  logo_url?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 500 })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(500)
  footer_text?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, pattern: '^#[0-9A-Fa-f]{6}$' })
  @ValidateIf(presentAndNotNull)
  @Matches(/^#[0-9A-Fa-f]{6}$/, { message: 'accent_color must be #RRGGBB' })
  accent_color?: string | null;
}

export class StoredTemplateDto {
  @ApiProperty({ type: CertificateTemplateDto }) template!: CertificateTemplateDto;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'null: never saved (the built default)',
  })
  updated_at!: string | null;
}

export class TemplatePreviewQueryDto {
  @ApiPropertyOptional({ enum: ['course', 'program'], default: 'course' })
  @IsOptional()
  @IsIn(['course', 'program'])
  type?: 'course' | 'program';

  @ApiPropertyOptional({ enum: ['es', 'en'], description: "Default the organization's language" })
  @IsOptional()
  @IsIn(['es', 'en'])
  lang?: 'es' | 'en';
}
