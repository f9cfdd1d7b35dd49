import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

export const OB_CONTEXT = [
  'https://www.w3.org/ns/credentials/v2',
  'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
] as const;

export class OpenBadgeQueryDto {
  @ApiPropertyOptional({ enum: ['jwt', 'json'], default: 'jwt' })
  @IsOptional()
  @IsIn(['jwt', 'json'])
  format?: 'jwt' | 'json';
}

export class CriteriaDto {
  @ApiProperty() narrative!: string;
}

export class AchievementDto {
  @ApiProperty({ name: '@context', type: [String], example: OB_CONTEXT }) '@context'?: readonly string[];
  @ApiProperty({ example: 'https://api.example.com/api/v1/public/ob/achievements/3f1c…' }) id!: string;
  @ApiProperty({ type: [String], example: ['Achievement'] }) type!: string[];
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: CriteriaDto }) criteria!: CriteriaDto;
}

export class IssuerProfileDto {
  @ApiProperty({ name: '@context', type: [String], example: OB_CONTEXT }) '@context'!: readonly string[];
  @ApiProperty({ description: 'This document’s own URL' }) id!: string;
  @ApiProperty({ type: [String], example: ['Profile'] }) type!: string[];
  @ApiProperty({ description: 'The organization’s name' }) name!: string;
  @ApiProperty({ description: 'WEB_URL' }) url!: string;
  @ApiPropertyOptional({ description: 'The organization’s logo, when it has one' }) image?: string;
}

export class JwkDto {
  @ApiProperty({ example: 'OKP' }) kty!: string;
  @ApiProperty({ example: 'Ed25519' }) crv!: string;
  @ApiProperty({ description: 'base64url public key' }) x!: string;
  @ApiProperty({ description: 'RFC 7638 thumbprint; the `kid` of the credentials’ JWS header' }) kid!: string;
  @ApiProperty({ example: 'EdDSA' }) alg!: string;
  @ApiProperty({ example: 'sig' }) use!: string;
}

export class JwksDto {
  @ApiProperty({ type: [JwkDto] }) keys!: JwkDto[];
}

export class CredentialStatusDto {
  @ApiProperty({ description: 'True when the certificate was revoked' }) revoked!: boolean;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'The code of the certificate that replaced it (a reissue); the replaced credential is not revoked',
  })
  replaced_by!: string | null;
}

export class IssuerRefDto {
  @ApiProperty({ description: 'The issuer profile’s URL' }) id!: string;
  @ApiProperty({ type: [String], example: ['Profile'] }) type!: string[];
  @ApiProperty() name!: string;
}

export class IdentityObjectDto {
  @ApiProperty({ example: 'IdentityObject' }) type!: string;
  @ApiProperty({ example: 'sha256$…', description: '`sha256$` + hex of SHA-256(email + salt)' }) identityHash!: string;
  @ApiProperty({ example: 'emailAddress' }) identityType!: string;
  @ApiProperty({ example: true }) hashed!: boolean;
  @ApiProperty() salt!: string;
}

export class CredentialAchievementDto {
  @ApiProperty() id!: string;
  @ApiProperty({ type: [String], example: ['Achievement'] }) type!: string[];
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: CriteriaDto }) criteria!: CriteriaDto;
}

export class CredentialSubjectDto {
  @ApiProperty({ type: [String], example: ['AchievementSubject'] }) type!: string[];
  @ApiProperty({ type: [IdentityObjectDto] }) identifier!: IdentityObjectDto[];
  @ApiProperty({ type: CredentialAchievementDto }) achievement!: CredentialAchievementDto;
}

export class CredentialStatusRefDto {
  @ApiProperty({ description: 'The certificate’s public verification URL' }) id!: string;
  @ApiProperty({ example: '1EdTechRevocationList' }) type!: string;
}

/** The OpenBadgeCredential (the JWT's `vc` claim): the 1EdTech OB 3.0 shape. */
export class OpenBadgeCredentialDto {
  @ApiProperty({ name: '@context', type: [String], example: OB_CONTEXT }) '@context'!: readonly string[];
  @ApiProperty({ example: 'urn:uuid:6f1f0c3e-…' }) id!: string;
  @ApiProperty({ type: [String], example: ['VerifiableCredential', 'OpenBadgeCredential'] }) type!: string[];
  @ApiProperty({ type: IssuerRefDto }) issuer!: IssuerRefDto;
  @ApiProperty({ format: 'date-time' }) validFrom!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: CredentialSubjectDto }) credentialSubject!: CredentialSubjectDto;
  @ApiProperty({ type: CredentialStatusRefDto }) credentialStatus!: CredentialStatusRefDto;
}
