import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsOptional, IsString, IsUrl, Length, MaxLength } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const URL_RULES = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

export class CreateSsoConnectionDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'University login' })
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiProperty({
    maxLength: 512,
    example: 'https://login.university.example',
    description:
      'OpenID Connect issuer; `{issuer}/.well-known/openid-configuration` must answer. https, or http on a loopback ' +
      'address outside production. Multi-tenant Microsoft issuers (`common`, `organizations`, `consumers`) are refused: ' +
      "name the institution's tenant.",
  })
  @Transform(trim)
  @IsUrl(URL_RULES)
  @MaxLength(512)
  issuer!: string;

  @ApiProperty({ minLength: 1, maxLength: 512 })
  @Transform(trim)
  @IsString()
  @Length(1, 512)
  client_id!: string;

  @ApiProperty({ minLength: 1, maxLength: 2048, writeOnly: true, description: 'Stored encrypted, never returned' })
  @IsString()
  @Length(1, 2048)
  client_secret!: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateSsoConnectionDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name?: string;

  @ApiPropertyOptional({ maxLength: 512 })
  @IsOptional()
  @Transform(trim)
  @IsUrl(URL_RULES)
  @MaxLength(512)
  issuer?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 512 })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 512)
  client_id?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 2048, writeOnly: true })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  client_secret?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class SsoConnectionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uri' }) issuer!: string;
  @ApiProperty() client_id!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class SsoConnectionTestDto {
  @ApiProperty({
    format: 'uri',
    description:
      "The identity provider's authorization URL: open it in this browser (the `svc_sso_state` cookie is set by " +
      'this response). The callback ends at `{web_url}/org/sso?test=ok` (or `?test=failed&error=<code>`) without ' +
      'opening a session.',
  })
  authorize_url!: string;
}

export class CreateSsoDomainDto {
  @ApiProperty({ example: 'university.example', maxLength: 253 })
  @Transform(trim)
  @IsString()
  @Length(3, 253)
  domain!: string;
}

export class UpdateSsoDomainDto {
  @ApiProperty({ description: 'Whether addresses of this domain must sign in through SSO (owners excepted)' })
  @IsBoolean()
  enforced!: boolean;
}

export class DomainVerificationDto {
  @ApiProperty({ enum: ['dns_txt'] }) type!: 'dns_txt';
  @ApiProperty({ example: '_lp-sso.university.example', description: 'Name of the TXT record to publish' })
  name!: string;
  @ApiProperty({ example: 'lp-sso-verification=...', description: 'Value of the TXT record' })
  value!: string;
}

export class SsoDomainDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() domain!: string;
  @ApiProperty({ enum: ['pending', 'verified'] }) status!: 'pending' | 'verified';
  @ApiProperty({ type: DomainVerificationDto }) verification!: DomainVerificationDto;
  @ApiProperty() enforced!: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) verified_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class SsoListQueryDto extends PageQueryDto {}

export class SsoDiscoverDto {
  @ApiProperty({ format: 'email', maxLength: 320 })
  @Transform(trim)
  @IsEmail()
  @MaxLength(320)
  email!: string;
}

export class SsoDiscoveryDto {
  @ApiProperty({
    description: "Whether the address's domain is verified by an organization with an enabled connection",
  })
  sso!: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) connection_id!: string | null;
  @ApiProperty({ nullable: true, type: String }) organization_name!: string | null;
  @ApiProperty({ description: 'Whether other sign-in methods are refused for this domain (owners excepted)' })
  enforced!: boolean;
}

export class SsoStartQueryDto {
  @ApiPropertyOptional({ maxLength: 255, nullable: true, description: 'Passed to the identity provider' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  login_hint?: string | null;
}
