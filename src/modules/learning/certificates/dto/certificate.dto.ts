import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, IsUUID, Length, MaxLength, maxLength } from 'class-validator';
import type { ErrorDetail } from '@/core/http/api-error';
import { PageQueryDto } from '@/core/http/pagination';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
/** An empty query value (`?cohort_id=`) means "no filter", as the contract lists these filters as nullable. */
const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const CERTIFICATE_STATUSES = ['active', 'revoked', 'replaced'] as const;
export const CERTIFICATE_TYPES = ['course', 'program'] as const;
export const VERIFICATION_STATUSES = ['valid', 'revoked', 'replaced'] as const;

export class CertificateTemplateDto {
  @ApiProperty({ nullable: true, type: String, description: 'Issuer shown on certificates (null: the organization)' })
  issuer_name!: string | null;
  @ApiProperty({ nullable: true, type: String }) signature_name!: string | null;
  @ApiProperty({ nullable: true, type: String }) signature_title!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uri' }) logo_url!: string | null;
  @ApiProperty({ nullable: true, type: String }) footer_text!: string | null;
  @ApiProperty({ nullable: true, type: String, pattern: '^#[0-9A-Fa-f]{6}$', example: '#1F4E79' })
  accent_color!: string | null;
}

export class CertificateTemplateResponseDto {
  @ApiProperty({ type: CertificateTemplateDto }) template!: CertificateTemplateDto;
}

export const VERIFICATION_CODE_MAX_LENGTH = 64;

/**
 * The rule of the verification code's path parameter. The public route checks it by hand (`verificationCodeErrors`)
 * instead of through the global ValidationPipe, whose metadata look-ups were 9 % of a verification; this class stays
 * as the reference the unit test compares with, and documents the parameter (`@ApiParam` reuses its options).
 */
export const VERIFICATION_CODE_PARAM = {
  maxLength: VERIFICATION_CODE_MAX_LENGTH,
  example: 'CRS-7K2M-Q9XH',
  description: 'Verification code; upper-cased and stripped of spaces before the look-up',
};

export class VerificationParamsDto {
  @ApiProperty(VERIFICATION_CODE_PARAM)
  @IsString()
  @MaxLength(VERIFICATION_CODE_MAX_LENGTH)
  code!: string;
}

/** What the ValidationPipe answers for `VerificationParamsDto` (a path parameter is always a string). */
export function verificationCodeErrors(code: string): ErrorDetail[] {
  return maxLength(code, VERIFICATION_CODE_MAX_LENGTH)
    ? []
    : [{ field: 'code', message: `code must be shorter than or equal to ${VERIFICATION_CODE_MAX_LENGTH} characters` }];
}

export class VerificationCredentialDto {
  @ApiProperty({ enum: CERTIFICATE_TYPES }) type!: 'course' | 'program';
  @ApiProperty({ example: 'Introducción a la estadística' }) title!: string;
}

export class VerificationIssuerDto {
  @ApiProperty({ description: "The template's issuer name, else the organization's name" }) name!: string;
  @ApiProperty({ nullable: true, type: String, format: 'uri' }) logo_url!: string | null;
}

/** Public: no email, no ids, no grade. */
export class VerificationDto {
  @ApiProperty({ example: 'CRS-7K2M-Q9XH' }) code!: string;
  @ApiProperty({ enum: VERIFICATION_STATUSES }) status!: 'valid' | 'revoked' | 'replaced';
  @ApiProperty({
    nullable: true,
    type: String,
    description: "null when revoked, or when the holder's account was erased without keeping the name",
  })
  holder_name!: string | null;
  @ApiProperty({ type: VerificationCredentialDto }) credential!: VerificationCredentialDto;
  @ApiProperty({ type: VerificationIssuerDto }) issuer!: VerificationIssuerDto;
  @ApiProperty({ format: 'date-time' }) issued_at!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'When it stopped being valid (revoked, or replaced by a reissue)',
  })
  revoked_at!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The code of the certificate that replaced this one' })
  replaced_by_code!: string | null;
}

export class CertificateHolderDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "The name printed on the certificate; null once the holder's account was erased without keeping it",
  })
  name!: string | null;
}

export class IssuedCertificateDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'PRG-7K2M-Q9XH' }) code!: string;
  @ApiProperty({ enum: CERTIFICATE_TYPES }) type!: 'course' | 'program';
  @ApiProperty({ enum: CERTIFICATE_STATUSES }) status!: 'active' | 'revoked' | 'replaced';
  @ApiProperty({ type: CertificateHolderDto }) holder!: CertificateHolderDto;
  @ApiProperty({ format: 'uuid', description: 'The issuing organization' }) organization_id!: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) course_id!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The program (type `program`)' })
  path_id!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'uuid',
    description: "The holder's cohort when it was issued",
  })
  cohort_id!: string | null;
  @ApiProperty() title!: string;
  @ApiProperty({ format: 'date-time' }) issued_at!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'When it stopped being valid (revoked or replaced)',
  })
  revoked_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) revoke_reason!: string | null;
  @ApiProperty({ nullable: true, type: String }) replaced_by_code!: string | null;
}

export class CertificateOrganizationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

export class MyCertificateDto extends IssuedCertificateDto {
  @ApiProperty({ type: CertificateOrganizationDto }) organization!: CertificateOrganizationDto;
}

export class MyCertificatesDto {
  @ApiProperty({ type: [MyCertificateDto] }) items!: MyCertificateDto[];
}

/** The filters of the list and of the export. */
export class CertificateFilterQueryDto {
  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid', description: 'Certificates of this course' })
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUUID()
  course_id?: string;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid', description: 'Certificates of this program' })
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUUID()
  path_id?: string;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'uuid',
    description:
      "Holders who are currently members of this cohort of the organization (another organization's cohort: 404; " +
      'for a teacher, a cohort they do not teach: 403)',
  })
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUUID()
  cohort_id?: string;

  @ApiPropertyOptional({ enum: CERTIFICATE_STATUSES })
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(CERTIFICATE_STATUSES)
  status?: 'active' | 'revoked' | 'replaced';

  @ApiPropertyOptional({ enum: CERTIFICATE_TYPES })
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(CERTIFICATE_TYPES)
  type?: 'course' | 'program';
}

/** The filters with `limit` and `offset`. */
export class CertificateListQueryDto extends IntersectionType(PageQueryDto, CertificateFilterQueryDto) {}

export class CertificateExportQueryDto extends CertificateFilterQueryDto {
  @ApiPropertyOptional({
    enum: ['es', 'en'],
    description: "Language of the header and values; else the browser's Accept-Language, else the organization's",
  })
  @IsOptional()
  @IsIn(['es', 'en'])
  lang?: 'es' | 'en';

  @ApiPropertyOptional({ enum: ['comma', 'semicolon'], default: 'comma', description: 'Cell separator' })
  @IsOptional()
  @IsIn(['comma', 'semicolon'])
  sep?: 'comma' | 'semicolon';
}

export class RevokeCertificateDto {
  @ApiProperty({ minLength: 1, maxLength: 500, description: 'Recorded on the certificate and in the audit log' })
  @Transform(trim)
  @IsString()
  @Length(1, 500)
  reason!: string;
}

export class ReissueCertificateDto {
  @ApiProperty({ minLength: 1, maxLength: 255, description: 'The corrected holder name' })
  @Transform(trim)
  @IsString()
  @Length(1, 255)
  name!: string;

  @ApiProperty({ minLength: 1, maxLength: 500, description: 'Recorded on the new certificate and in the audit log' })
  @Transform(trim)
  @IsString()
  @Length(1, 500)
  reason!: string;
}
