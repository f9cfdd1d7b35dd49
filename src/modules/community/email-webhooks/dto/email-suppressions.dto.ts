import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { SUPPRESSION_REASONS, type SuppressionReason } from '../email-events';
import { ADDRESS_MAX } from '../suppression-address';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

export class SuppressionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    maxLength: 320,
    example: 'a***@example.org',
    description:
      'The first character of the address, three asterisks and the domain; the address itself is never stored',
  })
  email_masked!: string;
  @ApiProperty({ enum: SUPPRESSION_REASONS }) reason!: SuppressionReason;
  @ApiProperty({
    nullable: true,
    type: String,
    maxLength: 256,
    description: 'The `webhook-id` of the provider event that suppressed the address (null for a manual entry)',
  })
  source_event_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class SuppressionListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    maxLength: ADDRESS_MAX,
    format: 'email',
    description: 'An exact address (any case): the entry whose keyed hash it has',
  })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(ADDRESS_MAX)
  @IsEmail()
  email?: string;

  @ApiPropertyOptional({ enum: SUPPRESSION_REASONS })
  @IsOptional()
  @IsIn(SUPPRESSION_REASONS)
  reason?: SuppressionReason;
}

export class CreateSuppressionDto {
  @ApiProperty({ maxLength: ADDRESS_MAX, format: 'email', example: 'ana@example.org' })
  @Transform(trim)
  @IsString()
  @MaxLength(ADDRESS_MAX)
  @IsEmail()
  email!: string;

  @ApiProperty({ enum: ['manual'], description: 'Admins add manual entries only' })
  @IsIn(['manual'])
  reason!: 'manual';
}
