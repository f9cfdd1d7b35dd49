import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Equals, IsBoolean, IsEmail, IsIn, IsOptional, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
/** Optional fields may be left out, but not sent as null. */
const present = (_: object, v: unknown): boolean => v !== undefined;

export const CONSENT_KINDS = [
  'adult_declaration',
  'terms',
  'privacy_policy',
  'product_updates_email',
  'guardian_consent',
] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];
/** The kinds a person records themself (17.2); the others are recorded by onboarding and the service. */
export const PERSONAL_CONSENT_KINDS = ['terms', 'privacy_policy', 'product_updates_email'] as const;
export type PersonalConsentKind = (typeof PERSONAL_CONSENT_KINDS)[number];

export const AGE_BRACKETS = ['adult', 'under_18'] as const;
export type AgeBracketValue = (typeof AGE_BRACKETS)[number];

export const GUARDIAN_CONSENT_STATUSES = [
  'not_required',
  'none',
  'pending',
  'granted',
  'denied',
  'expired',
  'revoked',
] as const;
export type GuardianConsentStatus = (typeof GUARDIAN_CONSENT_STATUSES)[number];

export const EXPORT_STATUSES = ['queued', 'running', 'ready', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** A body that must be empty (or absent). */
export class EmptyBodyDto {
  // class-validator takes a class without rules for an unknown value: this field, never sent and absent from the
  // OpenAPI description, is its one rule, so only the fields actually sent are refused.
  @Equals(undefined) readonly none?: undefined;
}

// Records.

export class ConsentDto {
  @ApiProperty({ enum: CONSENT_KINDS }) kind!: ConsentKind;
  @ApiProperty() granted!: boolean;
  @ApiProperty({ description: 'The version recorded' }) version!: string;
  @ApiProperty({ format: 'date-time' }) recorded_at!: string;
}

export class ConsentStateDto {
  @ApiProperty({ enum: CONSENT_KINDS }) kind!: ConsentKind;
  @ApiProperty({ description: 'The latest recorded state; false when never recorded' }) granted!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'The version recorded, null when never recorded' })
  version!: string | null;
  @ApiProperty({ description: 'The current version: the web app asks again when it differs from `version`' })
  current_version!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) recorded_at!: string | null;
}

export class ConsentListDto {
  @ApiProperty({ type: [ConsentDto] }) items!: ConsentDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class OrganizationRefDto {
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty() name!: string;
}

export class GuardianConsentStateDto {
  @ApiProperty({ enum: GUARDIAN_CONSENT_STATUSES }) status!: GuardianConsentStatus;
  @ApiProperty({ type: String, enum: ['email', 'organization'], nullable: true }) source!:
    'email' | 'organization' | null;
  @ApiProperty({ type: String, nullable: true, example: 'g*****@e******.org' }) guardian_email_masked!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) requested_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at!: string | null;
}

export class ExportDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: EXPORT_STATUSES }) status!: ExportStatus;
  @ApiProperty({ type: Number, nullable: true, description: 'Size of the ZIP as downloaded' }) size_bytes!:
    number | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) ready_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: '7 days after `ready_at`' })
  expires_at!: string | null;
}

export class ExportListDto {
  @ApiProperty({ type: [ExportDto], description: 'The 10 most recent' }) items!: ExportDto[];
}

export class ErasureStateDto {
  @ApiProperty({ enum: ['none', 'scheduled'] }) status!: 'none' | 'scheduled';
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) requested_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) scheduled_for!: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) keep_certificate_names!: boolean | null;
}

export class ErasureScheduledDto {
  @ApiProperty({ enum: ['scheduled'] }) status!: 'scheduled';
  @ApiProperty({ format: 'date-time' }) requested_at!: string;
  @ApiProperty({ format: 'date-time', description: '14 days after the request' }) scheduled_for!: string;
  @ApiProperty() keep_certificate_names!: boolean;
}

export class PrivacyRecordDto {
  @ApiProperty({ type: String, enum: AGE_BRACKETS, nullable: true }) age_bracket!: AgeBracketValue | null;
  @ApiProperty({ type: OrganizationRefDto, nullable: true }) age_bracket_managed_by!: OrganizationRefDto | null;
  @ApiProperty({ type: GuardianConsentStateDto }) guardian_consent!: GuardianConsentStateDto;
  @ApiProperty({ type: [ConsentStateDto] }) consents!: ConsentStateDto[];
  @ApiProperty({ type: [ExportDto], description: 'The 5 most recent' }) exports!: ExportDto[];
  @ApiProperty({ type: ErasureStateDto }) erasure!: ErasureStateDto;
}

export class GuardianConsentPendingDto {
  @ApiProperty({ enum: ['pending'] }) status!: 'pending';
  @ApiProperty({ example: 'g*****@e******.org' }) guardian_email_masked!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class GuardianPreviewDto {
  @ApiProperty({ type: String, nullable: true, description: 'The name the learner gave their account' })
  learner_name!: string | null;
  @ApiProperty({ type: [String], description: 'Names of the learner’s organizations' }) organizations!: string[];
  @ApiProperty({ format: 'date-time' }) requested_at!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ enum: ['pending', 'granted', 'denied', 'revoked'] }) status!: string;
}

export class GuardianDecisionResultDto {
  @ApiProperty({ enum: ['granted', 'denied'] }) status!: 'granted' | 'denied';
}

export class GuardianRevokedDto {
  @ApiProperty({ enum: ['revoked'] }) status!: 'revoked';
}

export class MemberGuardianConsentDto {
  @ApiProperty({ enum: GUARDIAN_CONSENT_STATUSES }) status!: GuardianConsentStatus;
  @ApiProperty({ type: String, enum: ['email', 'organization'], nullable: true }) source!:
    'email' | 'organization' | null;
}

export class MemberAgeBracketDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, enum: AGE_BRACKETS, nullable: true }) age_bracket!: AgeBracketValue | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) managed_by_organization_id!: string | null;
  @ApiProperty({ type: MemberGuardianConsentDto }) guardian_consent!: MemberGuardianConsentDto;
}

export class MemberAttestationDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: MemberGuardianConsentDto }) guardian_consent!: MemberGuardianConsentDto;
}

// Inputs.

export class ConsentListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: CONSENT_KINDS })
  @IsOptional()
  @IsIn(CONSENT_KINDS)
  kind?: ConsentKind;
}

export class RecordConsentDto {
  @ApiProperty({
    enum: PERSONAL_CONSENT_KINDS,
    description: 'Only these three; `adult_declaration` and `guardian_consent` are recorded elsewhere (422)',
  })
  @IsIn(PERSONAL_CONSENT_KINDS)
  kind!: PersonalConsentKind;

  @ApiProperty()
  @IsBoolean()
  granted!: boolean;
}

export class ErasureRequestDto {
  @ApiPropertyOptional({ default: false, description: 'Keep the name on issued certificates' })
  @ValidateIf(present)
  @IsBoolean()
  keep_certificate_names?: boolean;
}

export class AgeBracketDto {
  @ApiProperty({ enum: AGE_BRACKETS })
  @IsIn(AGE_BRACKETS)
  age_bracket!: AgeBracketValue;
}

export class MemberAgeBracketInputDto {
  @ApiProperty({
    type: String,
    enum: AGE_BRACKETS,
    nullable: true,
    description: 'null releases the management (the bracket stays)',
  })
  @ValidateIf((_o: object, v: unknown) => v !== null)
  @IsIn(AGE_BRACKETS)
  age_bracket!: AgeBracketValue | null;
}

export class GuardianConsentRequestDto {
  @ApiProperty({ maxLength: 254, description: 'Not the account’s own address' })
  @Transform(trim)
  @IsString()
  @MaxLength(254)
  @IsEmail()
  guardian_email!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  guardian_name?: string;
}

export class GuardianTokenDto {
  @ApiProperty({ minLength: 1, maxLength: 100, description: 'The token of the emailed link' })
  @IsString()
  @Length(1, 100)
  token!: string;
}

export class GuardianDecisionDto extends GuardianTokenDto {
  @ApiProperty({ enum: ['grant', 'deny'] })
  @IsIn(['grant', 'deny'])
  decision!: 'grant' | 'deny';

  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  guardian_name?: string;
}

export class AttestationDto {
  @ApiProperty({ minLength: 1, maxLength: 500, description: 'Why the organization holds the guardians’ consent' })
  @Transform(trim)
  @IsString()
  @Length(1, 500)
  reason!: string;
}
