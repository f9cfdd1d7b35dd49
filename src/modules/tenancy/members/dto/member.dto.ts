import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { ORG_ROLES, type OrgRole } from '@/core/auth/tenancy';
import { PageQueryDto } from '@/core/http/pagination';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** What the organization's SCIM directory says about the member (extensions-v3 2.3); absent fields are omitted. */
export class MemberDirectoryDto {
  @ApiPropertyOptional({ description: 'The directory’s userName' }) user_name?: string;
  @ApiPropertyOptional() external_id?: string;
  @ApiPropertyOptional() given_name?: string;
  @ApiPropertyOptional() family_name?: string;
  @ApiPropertyOptional() display_name?: string;
  @ApiPropertyOptional() employeeNumber?: string;
  @ApiPropertyOptional() department?: string;
  @ApiPropertyOptional() organization?: string;
  @ApiPropertyOptional() division?: string;
  @ApiPropertyOptional() costCenter?: string;
}

export class MemberDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ example: 'ana@example.org' }) email!: string;
  @ApiProperty({ enum: ORG_ROLES }) role!: OrgRole;
  @ApiProperty({
    description:
      'The person is under 18 (extensions-v2 17.5): the organization sees that, never a birth date (none is stored)',
  })
  minor!: boolean;
  @ApiProperty({ type: [String], format: 'uuid', description: "The person's cohorts in this organization" })
  cohort_ids!: string[];
  @ApiProperty({ format: 'date-time' }) joined_at!: string;
  @ApiProperty({
    type: MemberDirectoryDto,
    nullable: true,
    description:
      "The organization's SCIM directory attributes; shown to owners and admins (else null), null when the directory " +
      'never provisioned the person',
  })
  directory!: MemberDirectoryDto | null;
}

export class MemberListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ORG_ROLES })
  @IsOptional()
  @IsIn(ORG_ROLES)
  role?: OrgRole;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Part of the name or email, case-insensitive' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  q?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Members of this cohort (a cohort of another organization: 404)',
  })
  @IsOptional()
  @IsUUID()
  cohort_id?: string;
}

export class UpdateMemberDto {
  @ApiProperty({ enum: ORG_ROLES, description: 'Only an owner grants or removes owner and admin' })
  @IsIn(ORG_ROLES)
  role!: OrgRole;
}
