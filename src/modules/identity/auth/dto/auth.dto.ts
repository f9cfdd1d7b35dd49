import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const trimLower = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;

export class OtpRequestDto {
  @ApiProperty({ format: 'email', maxLength: 254, example: 'ana@example.org' })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiPropertyOptional({
    enum: ['es', 'en'],
    default: 'es',
    description: 'Language of the code email for a new account',
  })
  @IsOptional()
  @IsIn(['es', 'en'])
  locale?: 'es' | 'en';
}

export class OtpVerifyDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ pattern: '^[0-9]{6}$', example: '123456' })
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'code must be 6 digits' })
  code!: string;
}

/** A 6-digit code (TOTP or emailed). */
export class CodeDto {
  @ApiProperty({ pattern: '^[0-9]{6}$', example: '123456' })
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'code must be 6 digits' })
  code!: string;
}

/** A TOTP code or a recovery code. */
export class SecondFactorDto {
  @ApiProperty({ description: 'A 6-digit TOTP code or a recovery code `xxxxx-xxxxx`', example: '123456' })
  @IsString()
  @Matches(/^(\d{6}|[A-Za-z0-9]{5}-[A-Za-z0-9]{5})$/, {
    message: 'code must be 6 digits or a recovery code xxxxx-xxxxx',
  })
  code!: string;
}

export class EmailChangeRequestDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;
}

export class GenericResultDto {
  @ApiProperty({ example: 'sent', description: 'Always the same, whatever the email' }) status!: string;
}

export class ProvidersDto {
  @ApiProperty({
    type: [String],
    example: ['email_code'],
    description: 'email_code always; each configured external provider',
  })
  methods!: string[];
}

export class StepUpChallengeDto {
  @ApiProperty({ enum: ['totp', 'email_code'] }) method!: 'totp' | 'email_code';
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class CredentialDto {
  @ApiProperty({ enum: ['session', 'personal_token', 'oauth_token'] }) kind!: string;
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'null for a session' }) organization_id!:
    string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Role in that organization; null for a session' }) role!:
    string | null;
  @ApiProperty({ nullable: true, enum: ['read', 'write'], type: String, description: 'null for a session' }) access!:
    string | null;
}

export class SessionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'Firefox 132 on Ubuntu' }) device!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) last_seen_at!: string;
  @ApiProperty({ description: 'The session of this request' }) current!: boolean;
}

export class SessionListDto {
  @ApiProperty({ type: [SessionDto] }) items!: SessionDto[];
}

export class RevokedCountDto {
  @ApiProperty({ minimum: 0 }) revoked!: number;
}

export class TwoFactorStatusDto {
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ minimum: 0, maximum: 10 }) recovery_codes_left!: number;
  @ApiProperty({ description: 'Whether a policy requires two-factor for this account' }) required!: boolean;
}

export class TwoFactorSetupDto {
  @ApiProperty({ description: 'Base32 secret, for manual entry' }) secret!: string;
  @ApiProperty({
    example: 'otpauth://totp/Learning%20Platform:ana%40example.org?secret=...&issuer=Learning%20Platform',
  })
  otpauth_uri!: string;
  @ApiProperty({ description: 'QR code of the URI as an SVG document' }) qr_svg!: string;
}

export class RecoveryCodesDto {
  @ApiProperty({
    type: [String],
    minItems: 10,
    maxItems: 10,
    items: { type: 'string', pattern: '^[a-z0-9]{5}-[a-z0-9]{5}$' },
    example: [
      'k3m9p-x2v7q',
      'b7d2w-m4n8z',
      'q9t3r-h6j2k',
      'z5x8c-v1b4n',
      'm2n7b-x4c9v',
      'p8r3t-w6y1u',
      'a4s9d-f2g7h',
      'j6k1l-z3x8c',
      'v5b2n-m9q4w',
      'e7r4t-y2u6i',
    ],
    description: 'Shown once',
  })
  recovery_codes!: string[];
}

export class ImpersonationStatusDto {
  @ApiProperty() active!: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) impersonator_id!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) expires_at!: string | null;
}
