import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { IsTimeZone } from '@/core/http/validators';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;
const present = (_: object, v: unknown): boolean => v !== undefined;
const COLOR = /^#[0-9A-Fa-f]{6}$/;

export class CreateOrganizationDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Universidad de Ejemplo' })
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiPropertyOptional({ pattern: '^[a-z0-9-]{3,60}$', description: 'Derived from the name when absent' })
  @IsOptional()
  @Matches(/^[a-z0-9-]{3,60}$/, { message: 'slug must be 3..60 of a-z, 0-9 and -' })
  slug?: string;

  @ApiPropertyOptional({ enum: ['es', 'en'], default: 'es' })
  @IsOptional()
  @IsIn(['es', 'en'])
  locale?: 'es' | 'en';
}

/** Only the fields present are applied; `null` clears the nullable ones. */
export class UpdateOrganizationDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uri', maxLength: 512 })
  @ValidateIf(presentAndNotNull)
  @MaxLength(512)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  logo_url?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, pattern: '^#[0-9A-Fa-f]{6}$' })
  @ValidateIf(presentAndNotNull)
  @Matches(COLOR, { message: 'brand_color must be #RRGGBB' })
  brand_color?: string | null;

  @ApiPropertyOptional({ enum: ['es', 'en'] })
  @ValidateIf(present)
  @IsIn(['es', 'en'])
  locale?: 'es' | 'en';

  @ApiPropertyOptional({
    example: 'Europe/Madrid',
    maxLength: 64,
    description:
      'IANA time zone as the tz database spells it (`UTC`, `Europe/Madrid`; ICU-only ids such as `PST` are refused): ' +
      'leaderboard weeks and months, statistics series, report date ' +
      'filters; null not allowed',
  })
  @ValidateIf(present)
  @IsTimeZone()
  time_zone?: string;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 200,
    description: 'Certificate template: issuer name',
  })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(200)
  issuer_name?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 200,
    description: 'Certificate template: signer name',
  })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(200)
  signature_name?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 200,
    description: 'Certificate template: signer title',
  })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(200)
  signature_title?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'uri',
    maxLength: 512,
    description: 'Certificate template: logo',
  })
  @ValidateIf(presentAndNotNull)
  @MaxLength(512)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  cert_logo_url?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 500, description: 'Certificate template: footer' })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(500)
  footer_text?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    pattern: '^#[0-9A-Fa-f]{6}$',
    description: 'Certificate template: accent',
  })
  @ValidateIf(presentAndNotNull)
  @Matches(COLOR, { message: 'accent_color must be #RRGGBB' })
  accent_color?: string | null;
}

export class CertificateTemplateDto {
  @ApiProperty({ nullable: true, type: String }) issuer_name!: string | null;
  @ApiProperty({ nullable: true, type: String }) signature_name!: string | null;
  @ApiProperty({ nullable: true, type: String }) signature_title!: string | null;
  @ApiProperty({ nullable: true, type: String }) logo_url!: string | null;
  @ApiProperty({ nullable: true, type: String }) footer_text!: string | null;
  @ApiProperty({ nullable: true, type: String, pattern: '^#[0-9A-Fa-f]{6}$' }) accent_color!: string | null;
}

export class OrganizationLimitsDto {
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, description: 'Members; null = unlimited' })
  member_limit!: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description: 'AI tokens per UTC month; null = unlimited',
  })
  ai_monthly_tokens!: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description: 'AI requests per UTC month; null = unlimited',
  })
  ai_monthly_requests!: number | null;
}

export class OrganizationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() slug!: string;
  @ApiProperty({ enum: ['es', 'en'] }) locale!: string;
  @ApiProperty({
    example: 'Europe/Madrid',
    maxLength: 64,
    description: 'IANA time zone (default `UTC`) of the organization’s weeks, months and statistics',
  })
  time_zone!: string;
  @ApiProperty({ nullable: true, type: String }) logo_url!: string | null;
  @ApiProperty({ nullable: true, type: String }) brand_color!: string | null;
  @ApiProperty({ enum: ['active', 'suspended'] }) status!: string;
  @ApiProperty({ example: 'free' }) plan!: string;
  @ApiProperty({ type: OrganizationLimitsDto, description: 'Limits of the plan (set by platform admins)' })
  limits!: OrganizationLimitsDto;
  @ApiProperty({ type: CertificateTemplateDto }) certificate_template!: CertificateTemplateDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class OrganizationWithRoleDto {
  @ApiProperty({ type: OrganizationDto }) organization!: OrganizationDto;
  @ApiProperty({ enum: ['owner', 'admin', 'teacher', 'student'] }) role!: string;
}

export class MyOrganizationsDto {
  @ApiProperty({ type: [OrganizationWithRoleDto] }) organizations!: OrganizationWithRoleDto[];
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) active_organization_id!: string | null;
}

export class ActiveOrganizationDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  organization_id!: string;
}

export class AiPlanUsageDto {
  @ApiProperty({ minimum: 0, description: 'Metered AI calls this UTC month' }) requests_used!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null = unlimited' }) requests_limit!: number | null;
  @ApiProperty({ minimum: 0, description: 'Input plus output tokens this UTC month' }) tokens_used!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null = unlimited' }) tokens_limit!: number | null;
  @ApiProperty({ format: 'date-time', description: 'First instant of the next UTC month' }) resets_at!: string;
}

export class SuspendDto {
  @ApiProperty({ minLength: 1, maxLength: 500 })
  @Transform(trim)
  @IsString()
  @Length(1, 500)
  reason!: string;
}

export class UsageDto {
  @ApiProperty({ example: 'free' }) plan!: string;
  @ApiProperty({ example: { used: 12, limit: null }, description: 'limit null = unlimited' })
  members!: { used: number; limit: number | null };
  @ApiProperty({ description: "Enrollments of the organization's people in courses" }) courses_enrolled!: number;
  @ApiProperty({ type: AiPlanUsageDto, description: 'AI use this UTC month against the plan limits' })
  ai!: AiPlanUsageDto;
}

export class AdminOrganizationListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Part of the name or slug' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  q?: string;

  @ApiPropertyOptional({ enum: ['active', 'suspended'] })
  @IsOptional()
  @IsIn(['active', 'suspended'])
  status?: 'active' | 'suspended';

  @ApiPropertyOptional({ pattern: '^[a-z0-9_-]{1,40}$' })
  @IsOptional()
  @Matches(/^[a-z0-9_-]{1,40}$/)
  plan?: string;
}

export class AdminOrganizationDto extends OrganizationDto {
  @ApiProperty() members_count!: number;
}

export class ChangePlanDto {
  @ApiProperty({ pattern: '^[a-z0-9_-]{1,40}$', example: 'pro' })
  @Matches(/^[a-z0-9_-]{1,40}$/)
  plan!: string;

  @ApiProperty({ type: Number, nullable: true, minimum: 1, maximum: 1_000_000, description: 'null: unlimited' })
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  member_limit!: number | null;

  @ApiProperty({ type: Number, nullable: true, minimum: 1, maximum: 10_000_000_000, description: 'null: unlimited' })
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(10_000_000_000)
  ai_monthly_tokens!: number | null;

  @ApiProperty({ type: Number, nullable: true, minimum: 1, maximum: 100_000_000, description: 'null: unlimited' })
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  ai_monthly_requests!: number | null;
}
