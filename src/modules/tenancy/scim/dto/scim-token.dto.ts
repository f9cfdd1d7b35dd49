import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
export const SCIM_DEFAULT_ROLES = ['student', 'teacher'] as const;
export type ScimDefaultRole = (typeof SCIM_DEFAULT_ROLES)[number];

export class CreateScimTokenDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Microsoft Entra ID provisioning' })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  description!: string;

  @ApiPropertyOptional({
    enum: SCIM_DEFAULT_ROLES,
    default: 'student',
    description: 'The role of the people this token provisions',
  })
  @IsOptional()
  @IsIn(SCIM_DEFAULT_ROLES)
  default_role?: ScimDefaultRole;
}

export class ScimTokenDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: SCIM_DEFAULT_ROLES }) default_role!: ScimDefaultRole;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The admin who created it' })
  created_by!: string | null;
}

export class CreatedScimTokenDto extends ScimTokenDto {
  @ApiProperty({
    description: '`svc_scim_` + 43 + 6 checksum characters; shown only in this response (only its SHA-256 is kept)',
  })
  token!: string;
}

export class ScimTokenListDto {
  @ApiProperty({ type: [ScimTokenDto] }) items!: ScimTokenDto[];
}

export class ScimActivityDto {
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({ example: 'POST' }) method!: string;
  @ApiProperty({ example: '/scim/v2/Users' }) path!: string;
  @ApiProperty({ example: 201 }) status!: number;
  @ApiProperty({ type: String, nullable: true, description: 'The SCIM error detail, when there was one' })
  detail!: string | null;
}

export class ScimActivityListDto {
  @ApiProperty({ type: [ScimActivityDto], description: 'The last 500 SCIM requests, newest first (no bodies)' })
  items!: ScimActivityDto[];
}
