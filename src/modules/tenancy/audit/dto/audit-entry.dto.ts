import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsUUID, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

/** A date-time with its offset: a time without one would mean a different instant on every server. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    maxLength: 100,
    pattern: '^[a-z_.]+$',
    example: 'cohort.created',
    description: 'Exact action',
  })
  @IsOptional()
  @MaxLength(100)
  @Matches(/^[a-z_.]+$/, { message: 'action must be lower-case letters, dots and underscores' })
  action?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-01T00:00:00Z',
    description: 'Entries at or after this time (ISO 8601 with `Z` or an offset)',
  })
  @IsOptional()
  @Matches(DATE_TIME, { message: 'since must be an ISO 8601 date-time with Z or an offset' })
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time with Z or an offset' })
  since?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-30T23:59:59Z',
    description: 'Entries at or before this time; not before `since`',
  })
  @IsOptional()
  @Matches(DATE_TIME, { message: 'until must be an ISO 8601 date-time with Z or an offset' })
  @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date-time with Z or an offset' })
  until?: string;
}

export class AuditEntryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'cohort.member_added' }) action!: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Who acted; null for the system' })
  actor_id!: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'cohort' }) target_type!: string | null;
  @ApiProperty({ nullable: true, type: String }) target_id!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    pattern: '^[0-9a-f]{32}$',
    description: 'Keyed hash of the client address: equal for equal addresses, never the address',
  })
  ip_fingerprint!: string | null;
  @ApiProperty({
    type: 'object',
    properties: {},
    description: 'Ids, counts, roles and a stated reason; never a name, an email or other personal data',
    example: { user_id: '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11', role: 'teacher' },
  })
  metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class PlatformAuditQueryDto extends AuditQueryDto {
  @ApiPropertyOptional({ description: 'An organization id, or `none` for platform-level entries', maxLength: 36 })
  @IsOptional()
  @MaxLength(36)
  @Matches(/^(none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/, {
    message: 'organization_id must be a UUID or none',
  })
  organization_id?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  actor_id?: string;
}

export class PlatformAuditEntryDto extends AuditEntryDto {
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'null for platform-level entries' })
  organization_id!: string | null;
}
