import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
} from 'class-validator';

export const AI_FEATURES = ['tutor', 'quiz_proposal'] as const;
export const AI_PROVIDERS = ['local', 'openai_compatible'] as const;
export const AI_CALL_STATUSES = ['ok', 'error', 'interrupted'] as const;
export const AI_QUOTAS = [
  'member_daily_tokens',
  'organization_monthly_tokens',
  'organization_monthly_requests',
] as const;
export type AiFeature = (typeof AI_FEATURES)[number];
export type AiProviderName = (typeof AI_PROVIDERS)[number];
export type AiCallStatus = (typeof AI_CALL_STATUSES)[number];
export type AiQuota = (typeof AI_QUOTAS)[number];

export const ORG_GROUPS = ['day', 'member', 'feature'] as const;
export const PLATFORM_GROUPS = ['organization', 'day', 'feature', 'provider'] as const;
export type OrgGroup = (typeof ORG_GROUPS)[number];
export type PlatformGroup = (typeof PLATFORM_GROUPS)[number];

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const present = (_: object, v: unknown): boolean => v !== undefined;

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 does not). */
function IsCalendarDate(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be a date YYYY-MM-DD` },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' &&
          DATE.test(value) &&
          new Date(`${value}T00:00:00.000Z`).toISOString().slice(0, 10) === value,
      },
    });
}

export class UsagePeriodQueryDto {
  @ApiPropertyOptional({
    example: '2026-11-01',
    pattern: DATE.source,
    maxLength: 10,
    description: 'First UTC date (inclusive); default the first day of the current month',
  })
  @IsOptional()
  @MaxLength(10)
  @Matches(DATE)
  @IsCalendarDate()
  from?: string;

  @ApiPropertyOptional({
    example: '2026-11-30',
    pattern: DATE.source,
    maxLength: 10,
    description: 'Last UTC date (inclusive); default the last day of the month of `from`. At most 366 days in all',
  })
  @IsOptional()
  @MaxLength(10)
  @Matches(DATE)
  @IsCalendarDate()
  to?: string;
}

export class OrganizationUsageQueryDto extends UsagePeriodQueryDto {
  @ApiPropertyOptional({ enum: ORG_GROUPS, default: 'day' })
  @IsOptional()
  @IsIn(ORG_GROUPS)
  group_by: OrgGroup = 'day';
}

export class PlatformUsageQueryDto extends UsagePeriodQueryDto {
  @ApiPropertyOptional({ enum: PLATFORM_GROUPS, default: 'organization' })
  @IsOptional()
  @IsIn(PLATFORM_GROUPS)
  group_by: PlatformGroup = 'organization';
}

export class UpdateAiSettingsDto {
  @ApiPropertyOptional({ description: 'The tutor answers in this organization (else 404 `feature_disabled`)' })
  @ValidateIf(present)
  @IsBoolean()
  tutor_enabled?: boolean;

  @ApiPropertyOptional({ description: 'Members under 18 (with guardian consent) may use the tutor' })
  @ValidateIf(present)
  @IsBoolean()
  minors_allowed?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1000,
    maximum: 10_000_000,
    description: 'Tokens one member may use per UTC day; null = no daily limit',
  })
  @ValidateIf((_o, v) => v !== undefined && v !== null)
  @IsInt()
  @Min(1000)
  @Max(10_000_000)
  per_member_daily_tokens?: number | null;
}

export class AiSettingsDto {
  @ApiProperty() tutor_enabled!: boolean;
  @ApiProperty() minors_allowed!: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null = no daily limit' })
  per_member_daily_tokens!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'From the plan (read-only here); null = unlimited' })
  monthly_tokens_limit!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'From the plan (read-only here); null = unlimited' })
  monthly_requests_limit!: number | null;
  @ApiProperty({ enum: AI_PROVIDERS, description: 'The provider the deployment uses (read-only)' })
  provider!: AiProviderName;
}

export class UsagePeriodDto {
  @ApiProperty({ example: '2026-11-01' }) from!: string;
  @ApiProperty({ example: '2026-11-30' }) to!: string;
}

export class UsageTotalsDto {
  @ApiProperty({ minimum: 0, description: 'Metered calls (answers, declines, failed calls, proposals)' })
  requests!: number;
  @ApiProperty({ minimum: 0 }) input_tokens!: number;
  @ApiProperty({ minimum: 0 }) output_tokens!: number;
}

export class UsageDayDto {
  @ApiProperty({ example: '2026-11-03' }) date!: string;
  @ApiProperty({ minimum: 0 }) requests!: number;
  @ApiProperty({ minimum: 0, description: 'Input plus output' }) tokens!: number;
}

export class UsageByOrganizationDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: platform work (quiz proposals)' })
  organization_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ minimum: 0 }) requests!: number;
  @ApiProperty({ minimum: 0 }) tokens!: number;
}

export class UsageTodayDto {
  @ApiProperty({ minimum: 0, description: 'Tokens used today (UTC) in the active or token organization' })
  tokens!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: "That organization's `per_member_daily_tokens`" })
  limit!: number | null;
}

export class MyAiUsageDto {
  @ApiProperty({ type: UsagePeriodDto }) period!: UsagePeriodDto;
  @ApiProperty({ type: UsageTotalsDto }) totals!: UsageTotalsDto;
  @ApiProperty({ type: [UsageDayDto], description: 'Every date of the period, in order' }) by_day!: UsageDayDto[];
  @ApiProperty({ type: [UsageByOrganizationDto], description: 'Most tokens first' })
  by_organization!: UsageByOrganizationDto[];
  @ApiProperty({ type: UsageTodayDto }) today!: UsageTodayDto;
}

export class UsageGroupDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The date, member id, feature, organization id or provider; null for a person erased or gone (member) or for ' +
      'platform work (organization)',
  })
  key!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The member's name, the organization's name, else the key",
  })
  label!: string | null;
  @ApiProperty({ minimum: 0 }) requests!: number;
  @ApiProperty({ minimum: 0 }) input_tokens!: number;
  @ApiProperty({ minimum: 0 }) output_tokens!: number;
}

export class OrganizationQuotaDto {
  @ApiProperty({ type: 'integer', nullable: true }) monthly_tokens_limit!: number | null;
  @ApiProperty({ minimum: 0 }) monthly_tokens_used!: number;
  @ApiProperty({ type: 'integer', nullable: true }) monthly_requests_limit!: number | null;
  @ApiProperty({ minimum: 0 }) monthly_requests_used!: number;
  @ApiProperty({ format: 'date-time', description: 'First instant of the next UTC month' }) resets_at!: string;
}

export class OrganizationAiUsageDto {
  @ApiProperty({ type: UsagePeriodDto }) period!: UsagePeriodDto;
  @ApiProperty({ type: UsageTotalsDto }) totals!: UsageTotalsDto;
  @ApiProperty({
    type: [UsageGroupDto],
    description: 'Only groups with usage; days in order, members and features by tokens (most first)',
  })
  groups!: UsageGroupDto[];
  @ApiProperty({ type: OrganizationQuotaDto, description: 'The current UTC month, whatever the period' })
  quota!: OrganizationQuotaDto;
}

export class PlatformAiUsageDto {
  @ApiProperty({ type: UsagePeriodDto }) period!: UsagePeriodDto;
  @ApiProperty({ type: UsageTotalsDto }) totals!: UsageTotalsDto;
  @ApiProperty({ type: [UsageGroupDto] }) groups!: UsageGroupDto[];
}
