import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, IsUUID, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { ORG_ROLES, type OrgRole } from '@/core/auth/tenancy';
import { PageQueryDto } from '@/core/http/pagination';
import { OrganizationDto } from '@/modules/tenancy/organizations';
import { INVITATION_STATUSES, type InvitationStatus } from '../invitation-rules';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const trimLower = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;

/** The token of an invitation link: 32 random bytes in base64url (43 characters). */
export const INVITATION_TOKEN = /^[A-Za-z0-9_-]{20,128}$/;
const TOKEN_PROPERTY = {
  description: 'The token of the invitation link `{web_url}/invitations/{token}`',
  pattern: '^[A-Za-z0-9_-]{20,128}$',
  example: 'q7m3Vd0c9mYbJm2b2hWn8yHqfZcZ0d0Qx1n4s6r8t0A',
} as const;

export class CreateInvitationDto {
  @ApiProperty({ format: 'email', maxLength: 254, example: 'ana@example.org' })
  @Transform(trimLower)
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email!: string;

  @ApiPropertyOptional({ enum: ORG_ROLES, default: 'student', description: 'Only an owner invites owners and admins' })
  @IsOptional()
  @IsIn(ORG_ROLES)
  role?: OrgRole;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'A cohort of this organization the person joins on acceptance (as teacher for the role teacher, else as student)',
  })
  @ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null)
  @IsUUID()
  cohort_id?: string | null;
}

export class InvitationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'ana@example.org' }) email!: string;
  @ApiProperty({ enum: ORG_ROLES }) role!: OrgRole;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) cohort_id!: string | null;
  @ApiProperty({ enum: INVITATION_STATUSES, description: '`expired`: pending past `expires_at`' })
  status!: InvitationStatus;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class InvitationListItemDto extends InvitationDto {
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) accepted_at!: string | null;
}

export class InvitationListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: INVITATION_STATUSES })
  @IsOptional()
  @IsIn(INVITATION_STATUSES)
  status?: InvitationStatus;
}

export class InvitationTokenDto {
  @ApiProperty(TOKEN_PROPERTY)
  @IsString()
  @Matches(INVITATION_TOKEN, { message: 'token must be the token of an invitation link' })
  token!: string;
}

export class InvitationCodeVerifyDto extends InvitationTokenDto {
  @ApiProperty({ pattern: '^[0-9]{6}$', example: '123456', description: 'The code emailed to the invited address' })
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'code must be 6 digits' })
  code!: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 255,
    description: 'Name of the account when it is created now (ignored when the account already has one)',
  })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 255)
  name?: string;
}

/** Exactly one of `token` (from the link) or `invitation_id` (from `GET /me/invitations`). */
export class AcceptInvitationDto {
  @ApiPropertyOptional({ ...TOKEN_PROPERTY, description: `${TOKEN_PROPERTY.description}; or send invitation_id` })
  @ValidateIf((o: AcceptInvitationDto) => o.invitation_id === undefined)
  @IsString()
  @Matches(INVITATION_TOKEN, { message: 'token must be the token of an invitation link' })
  token?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The id listed by `GET /me/invitations`; or send token' })
  @ValidateIf((o: AcceptInvitationDto) => o.token === undefined)
  @IsUUID()
  invitation_id?: string;
}

export class InvitationOrganizationDto {
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) logo_url!: string | null;
  @ApiProperty({ type: String, nullable: true, pattern: '^#[0-9A-Fa-f]{6}$' }) brand_color!: string | null;
}

export class InvitationPreviewDto {
  @ApiProperty({ type: InvitationOrganizationDto }) organization!: InvitationOrganizationDto;
  @ApiProperty({ enum: ORG_ROLES }) role!: OrgRole;
  @ApiProperty({ example: 'a**@e******.org', description: 'The invited address, masked' }) email_masked!: string;
  @ApiProperty({ description: 'Whether the invited address already has an account' }) account_exists!: boolean;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class InvitationCodeSentDto {
  @ApiProperty({ example: 'sent', enum: ['sent'] }) status!: 'sent';
}

export class JoinedOrganizationDto {
  @ApiProperty({ type: OrganizationDto }) organization!: OrganizationDto;
  @ApiProperty({ enum: ORG_ROLES, description: 'The role in the organization (an earlier membership keeps its role)' })
  role!: OrgRole;
}

export class MyInvitationOrganizationDto extends InvitationOrganizationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
}

export class MyInvitationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: MyInvitationOrganizationDto }) organization!: MyInvitationOrganizationDto;
  @ApiProperty({ enum: ORG_ROLES }) role!: OrgRole;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class MyInvitationsDto {
  @ApiProperty({ type: [MyInvitationDto] }) items!: MyInvitationDto[];
}
