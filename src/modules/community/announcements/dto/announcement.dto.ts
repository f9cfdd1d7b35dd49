import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ORG_ROLES, type OrgRole } from '@/core/auth/tenancy';
import { PageQueryDto } from '@/core/http/pagination';
import { type Locale, LOCALES } from '@/core/mail/mail-template';

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const SCOPES = ['platform', 'organization'] as const;
export type AnnouncementScope = (typeof SCOPES)[number];
export const STATUSES = ['scheduled', 'active', 'ended'] as const;
export type AnnouncementStatus = (typeof STATUSES)[number];

export const TITLE_MAX = 120;
export const BODY_MAX = 2000;
/** Organizations of a platform audience, or cohorts of an organization audience. */
export const AUDIENCE_IDS_MAX = 100;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const dateTimeMessage = (field: string) => ({ message: `${field} must be an ISO 8601 date-time with Z or an offset` });
const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;

export class TranslationDto {
  @ApiProperty({ minLength: 1, maxLength: TITLE_MAX, example: 'Mantenimiento programado' })
  @Transform(trim)
  @IsString()
  @Length(1, TITLE_MAX)
  title!: string;

  @ApiProperty({
    maxLength: BODY_MAX,
    example: 'La plataforma no estará disponible el **sábado** de 8:00 a 10:00 (UTC).',
    description: 'Markdown; raw HTML is shown as text, never rendered',
  })
  @IsString()
  @MaxLength(BODY_MAX)
  body_md!: string;
}

/** At least one language (checked by the service, which names the field). */
export class TranslationsDto {
  @ApiPropertyOptional({ type: TranslationDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => TranslationDto)
  es?: TranslationDto;

  @ApiPropertyOptional({ type: TranslationDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => TranslationDto)
  en?: TranslationDto;
}

/** In a PATCH a language given replaces that language, `null` removes it (one must remain). */
export class TranslationsPatchDto {
  @ApiPropertyOptional({ type: TranslationDto, nullable: true })
  @ValidateIf(presentAndNotNull)
  @ValidateNested()
  @Type(() => TranslationDto)
  es?: TranslationDto | null;

  @ApiPropertyOptional({ type: TranslationDto, nullable: true })
  @ValidateIf(presentAndNotNull)
  @ValidateNested()
  @Type(() => TranslationDto)
  en?: TranslationDto | null;
}

export class AudienceDto {
  @ApiPropertyOptional({
    type: [String],
    enum: ORG_ROLES,
    maxItems: ORG_ROLES.length,
    description: 'Roles reached (in the organization the reader is in); empty: every role',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(ORG_ROLES.length)
  @ArrayUnique()
  @IsIn(ORG_ROLES, { each: true })
  roles?: OrgRole[];

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: AUDIENCE_IDS_MAX,
    description:
      'Platform announcements only: the organizations reached; empty: every organization (and people in none)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(AUDIENCE_IDS_MAX)
  @ArrayUnique((id: string) => (typeof id === 'string' ? id.toLowerCase() : id))
  @IsUUID('all', { each: true })
  organization_ids?: string[];

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: AUDIENCE_IDS_MAX,
    description: 'Organization announcements only: cohorts of the organization; empty: every member',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(AUDIENCE_IDS_MAX)
  @ArrayUnique((id: string) => (typeof id === 'string' ? id.toLowerCase() : id))
  @IsUUID('all', { each: true })
  cohort_ids?: string[];
}

export class CreateAnnouncementDto {
  @ApiProperty({ type: TranslationsDto, description: 'At least one of `es` and `en`' })
  @IsObject()
  @ValidateNested()
  @Type(() => TranslationsDto)
  translations!: TranslationsDto;

  @ApiPropertyOptional({ enum: SEVERITIES, default: 'info' })
  @IsOptional()
  @IsIn(SEVERITIES)
  severity?: Severity;

  @ApiPropertyOptional({ type: AudienceDto, description: 'Absent: everyone of the scope' })
  @IsOptional()
  @ValidateNested()
  @Type(() => AudienceDto)
  audience?: AudienceDto;

  @ApiPropertyOptional({ format: 'date-time', maxLength: 40, description: 'Default: now' })
  @IsOptional()
  @Matches(DATE_TIME, dateTimeMessage('starts_at'))
  @IsISO8601({ strict: true }, dateTimeMessage('starts_at'))
  starts_at?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: 40,
    nullable: true,
    type: String,
    description: 'After `starts_at`; null: no end',
  })
  @ValidateIf(presentAndNotNull)
  @Matches(DATE_TIME, dateTimeMessage('ends_at'))
  @IsISO8601({ strict: true }, dateTimeMessage('ends_at'))
  ends_at?: string | null;

  @ApiPropertyOptional({
    description: 'Whether readers may dismiss it (default true; a `critical` announcement never is: `true` is 422)',
  })
  @IsOptional()
  @IsBoolean()
  dismissible?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      'Email it once at `starts_at` to its audience (critical: everyone; otherwise people with the consent ' +
      '`product_updates_email`)',
  })
  @IsOptional()
  @IsBoolean()
  email?: boolean;
}

export class UpdateAnnouncementDto {
  @ApiPropertyOptional({ type: TranslationsPatchDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => TranslationsPatchDto)
  translations?: TranslationsPatchDto;

  @ApiPropertyOptional({ enum: SEVERITIES })
  @IsOptional()
  @IsIn(SEVERITIES)
  severity?: Severity;

  @ApiPropertyOptional({ type: AudienceDto, description: 'Each list given replaces that list' })
  @IsOptional()
  @ValidateNested()
  @Type(() => AudienceDto)
  audience?: AudienceDto;

  @ApiPropertyOptional({ format: 'date-time', maxLength: 40 })
  @IsOptional()
  @Matches(DATE_TIME, dateTimeMessage('starts_at'))
  @IsISO8601({ strict: true }, dateTimeMessage('starts_at'))
  starts_at?: string;

  @ApiPropertyOptional({ format: 'date-time', maxLength: 40, nullable: true, type: String })
  @ValidateIf(presentAndNotNull)
  @Matches(DATE_TIME, dateTimeMessage('ends_at'))
  @IsISO8601({ strict: true }, dateTimeMessage('ends_at'))
  ends_at?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  dismissible?: boolean;

  @ApiPropertyOptional({ description: 'Cannot change once the announcement was emailed (409)' })
  @IsOptional()
  @IsBoolean()
  email?: boolean;
}

export class AnnouncementListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: STATUSES,
    description: '`scheduled`: not started; `active`: started and not ended; `ended`: past `ends_at`',
  })
  @IsOptional()
  @IsIn(STATUSES)
  status?: AnnouncementStatus;
}

export class CurrentAnnouncementsQueryDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description: "The organization to read in; default the token's organization, else the active one",
  })
  @IsOptional()
  @IsUUID('all')
  organization_id?: string;
}

// Records.

export class TranslationRecordDto {
  @ApiProperty({ maxLength: TITLE_MAX }) title!: string;
  @ApiProperty({ maxLength: BODY_MAX }) body_md!: string;
}

export class TranslationsRecordDto {
  @ApiPropertyOptional({ type: TranslationRecordDto }) es?: TranslationRecordDto;
  @ApiPropertyOptional({ type: TranslationRecordDto }) en?: TranslationRecordDto;
}

export class AudienceRecordDto {
  @ApiProperty({ type: [String], enum: ORG_ROLES, maxItems: ORG_ROLES.length }) roles!: OrgRole[];
  @ApiProperty({ type: [String], format: 'uuid', maxItems: AUDIENCE_IDS_MAX }) organization_ids!: string[];
  @ApiProperty({ type: [String], format: 'uuid', maxItems: AUDIENCE_IDS_MAX }) cohort_ids!: string[];
}

export class CreatedByDto {
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Null once the author was erased' })
  user_id!: string | null;
}

export class AnnouncementDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: SCOPES }) scope!: AnnouncementScope;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) organization_id!: string | null;
  @ApiProperty({ type: TranslationsRecordDto }) translations!: TranslationsRecordDto;
  @ApiProperty({ enum: SEVERITIES }) severity!: Severity;
  @ApiProperty({ type: AudienceRecordDto }) audience!: AudienceRecordDto;
  @ApiProperty({ format: 'date-time' }) starts_at!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) ends_at!: string | null;
  @ApiProperty() dismissible!: boolean;
  @ApiProperty() email!: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'When the email went out' })
  emailed_at!: string | null;
  @ApiProperty({ type: CreatedByDto }) created_by!: CreatedByDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class CurrentAnnouncementDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: SCOPES }) scope!: AnnouncementScope;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) organization_id!: string | null;
  @ApiProperty({ maxLength: TITLE_MAX }) title!: string;
  @ApiProperty({ maxLength: BODY_MAX }) body_md!: string;
  @ApiProperty({
    maxLength: 65_536,
    description: 'The markdown rendered to sanitized HTML (no raw HTML, no scripts, safe links)',
  })
  body_html!: string;
  @ApiProperty({ enum: LOCALES, description: "The translation's language: the reader's, else the other one" })
  locale!: Locale;
  @ApiProperty({ enum: SEVERITIES }) severity!: Severity;
  @ApiProperty({ format: 'date-time' }) starts_at!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) ends_at!: string | null;
  @ApiProperty() dismissible!: boolean;
}

export class CurrentAnnouncementsDto {
  @ApiProperty({ type: [CurrentAnnouncementDto], maxItems: 50 }) items!: CurrentAnnouncementDto[];
}
