import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';

/*
 * The WebAuthn JSON shapes of the W3C standard (WebAuthn Level 3, 5.1 "toJSON"), as a browser's
 * `PublicKeyCredential.parseCreationOptionsFromJSON` / `toJSON()` take and give them. On these fields the standard
 * wins over the service's snake_case convention (extensions-v3 introduction). Binary values are base64url.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const B64_MESSAGE = 'must be base64url';
const TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'];

/** `AuthenticationExtensionsClientInputsJSON`: this service asks only for `credProps`. */
class ExtensionsInputJsonDto {
  @ApiPropertyOptional({ description: 'Ask the client whether the credential is discoverable' })
  credProps?: boolean;
}

class CredentialPropertiesJsonDto {
  @ApiPropertyOptional({ description: 'The credential is discoverable (resident key)' })
  rk?: boolean;
}

/**
 * `AuthenticationExtensionsClientOutputsJSON`: the outputs of the extensions asked for; others a client adds are
 * accepted and ignored.
 */
class ClientExtensionResultsJsonDto {
  @ApiPropertyOptional({ type: CredentialPropertiesJsonDto })
  credProps?: CredentialPropertiesJsonDto;
}

class RelyingPartyJsonDto {
  @ApiProperty({ example: 'Learning Platform' })
  name!: string;

  @ApiProperty({ example: 'app.example.org', description: 'The RP ID: `WEBAUTHN_RP_ID`, else the host of `WEB_URL`' })
  id!: string;
}

class UserEntityJsonDto {
  @ApiProperty({ description: 'The user handle (base64url of the account id)' })
  id!: string;

  @ApiProperty({ example: 'ana@example.org' })
  name!: string;

  @ApiProperty({ example: 'Ana García' })
  displayName!: string;
}

class CredentialParameterJsonDto {
  @ApiProperty({ enum: ['public-key'] })
  type!: 'public-key';

  @ApiProperty({ description: 'COSE algorithm identifier', example: -7 })
  alg!: number;
}

export class CredentialDescriptorJsonDto {
  @ApiProperty({ description: 'The credential id (base64url)' })
  id!: string;

  @ApiProperty({ enum: ['public-key'] })
  type!: 'public-key';

  @ApiPropertyOptional({ type: [String], enum: TRANSPORTS })
  transports?: string[];
}

class AuthenticatorSelectionJsonDto {
  @ApiProperty({ enum: ['required'], description: 'Discoverable credentials only' })
  residentKey!: 'required';

  @ApiProperty()
  requireResidentKey!: boolean;

  @ApiProperty({ enum: ['preferred'] })
  userVerification!: 'preferred';
}

/** `PublicKeyCredentialCreationOptionsJSON` (WebAuthn 3, 5.4 and 5.1.6). */
export class PublicKeyCredentialCreationOptionsJsonDto {
  @ApiProperty({ type: RelyingPartyJsonDto })
  rp!: RelyingPartyJsonDto;

  @ApiProperty({ type: UserEntityJsonDto })
  user!: UserEntityJsonDto;

  @ApiProperty({ description: '32 random bytes (base64url), single use, 5 minutes' })
  challenge!: string;

  @ApiProperty({ type: [CredentialParameterJsonDto] })
  pubKeyCredParams!: CredentialParameterJsonDto[];

  @ApiPropertyOptional({ description: 'Milliseconds', example: 300000 })
  timeout?: number;

  @ApiProperty({ type: [CredentialDescriptorJsonDto], description: "The person's passkeys" })
  excludeCredentials!: CredentialDescriptorJsonDto[];

  @ApiProperty({ type: AuthenticatorSelectionJsonDto })
  authenticatorSelection!: AuthenticatorSelectionJsonDto;

  @ApiProperty({ enum: ['none'] })
  attestation!: 'none';

  @ApiPropertyOptional({ type: ExtensionsInputJsonDto })
  extensions?: ExtensionsInputJsonDto;

  @ApiPropertyOptional({ type: [String] })
  hints?: string[];
}

/** `PublicKeyCredentialRequestOptionsJSON` (WebAuthn 3, 5.5 and 5.1.7). */
export class PublicKeyCredentialRequestOptionsJsonDto {
  @ApiProperty({ description: '32 random bytes (base64url), single use, 5 minutes' })
  challenge!: string;

  @ApiPropertyOptional({ description: 'Milliseconds', example: 300000 })
  timeout?: number;

  @ApiProperty({ example: 'app.example.org' })
  rpId!: string;

  @ApiProperty({
    type: [CredentialDescriptorJsonDto],
    description: 'Empty for passwordless sign-in (discoverable credentials); else the person’s passkeys',
  })
  allowCredentials!: CredentialDescriptorJsonDto[];

  @ApiProperty({ enum: ['required', 'preferred'] })
  userVerification!: 'required' | 'preferred';

  @ApiPropertyOptional({ type: ExtensionsInputJsonDto })
  extensions?: ExtensionsInputJsonDto;

  @ApiPropertyOptional({ type: [String] })
  hints?: string[];
}

class AttestationResponseJsonDto {
  @ApiProperty({ maxLength: 8192, pattern: BASE64URL.source })
  @IsString()
  @MaxLength(8192)
  @Matches(BASE64URL, { message: `clientDataJSON ${B64_MESSAGE}` })
  clientDataJSON!: string;

  @ApiProperty({ maxLength: 32768, pattern: BASE64URL.source })
  @IsString()
  @MaxLength(32768)
  @Matches(BASE64URL, { message: `attestationObject ${B64_MESSAGE}` })
  attestationObject!: string;

  @ApiPropertyOptional({ maxLength: 16384, pattern: BASE64URL.source })
  @IsOptional()
  @IsString()
  @MaxLength(16384)
  @Matches(BASE64URL, { message: `authenticatorData ${B64_MESSAGE}` })
  authenticatorData?: string;

  @ApiPropertyOptional({ type: [String], enum: TRANSPORTS, maxItems: 8 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8)
  @IsIn(TRANSPORTS, { each: true })
  transports?: string[];

  @ApiPropertyOptional({ minimum: -65536, maximum: 65535 })
  @IsOptional()
  @IsInt()
  publicKeyAlgorithm?: number;

  @ApiPropertyOptional({ maxLength: 8192, pattern: BASE64URL.source })
  @IsOptional()
  @IsString()
  @MaxLength(8192)
  @Matches(BASE64URL, { message: `publicKey ${B64_MESSAGE}` })
  publicKey?: string;
}

class AssertionResponseJsonDto {
  @ApiProperty({ maxLength: 8192, pattern: BASE64URL.source })
  @IsString()
  @MaxLength(8192)
  @Matches(BASE64URL, { message: `clientDataJSON ${B64_MESSAGE}` })
  clientDataJSON!: string;

  @ApiProperty({ maxLength: 16384, pattern: BASE64URL.source })
  @IsString()
  @MaxLength(16384)
  @Matches(BASE64URL, { message: `authenticatorData ${B64_MESSAGE}` })
  authenticatorData!: string;

  @ApiProperty({ maxLength: 2048, pattern: BASE64URL.source })
  @IsString()
  @MaxLength(2048)
  @Matches(BASE64URL, { message: `signature ${B64_MESSAGE}` })
  signature!: string;

  @ApiPropertyOptional({ maxLength: 128, pattern: BASE64URL.source, description: 'The user handle' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  @Matches(BASE64URL, { message: `userHandle ${B64_MESSAGE}` })
  userHandle?: string;
}

/** What every credential answer carries besides its `response`. */
abstract class CredentialJsonDto {
  @ApiProperty({ maxLength: 1366, pattern: BASE64URL.source, description: 'The credential id (base64url)' })
  @IsString()
  @MaxLength(1366)
  @Matches(BASE64URL, { message: `id ${B64_MESSAGE}` })
  id!: string;

  @ApiProperty({ maxLength: 1366, pattern: BASE64URL.source, description: 'Equal to `id`' })
  @IsString()
  @MaxLength(1366)
  @Matches(BASE64URL, { message: `rawId ${B64_MESSAGE}` })
  rawId!: string;

  @ApiProperty({ enum: ['public-key'] })
  @IsIn(['public-key'])
  type!: 'public-key';

  @ApiPropertyOptional({ enum: ['platform', 'cross-platform'] })
  @IsOptional()
  @IsIn(['platform', 'cross-platform'])
  authenticatorAttachment?: 'platform' | 'cross-platform';

  @ApiProperty({ type: ClientExtensionResultsJsonDto, description: 'Client extension outputs' })
  @IsObject()
  clientExtensionResults!: Record<string, unknown>;
}

/** `RegistrationResponseJSON` (WebAuthn 3, 5.1): what `credential.toJSON()` gives after `navigator.credentials.create`. */
export class RegistrationResponseJsonDto extends CredentialJsonDto {
  @ApiProperty({ type: AttestationResponseJsonDto })
  @ValidateNested()
  @Type(() => AttestationResponseJsonDto)
  response!: AttestationResponseJsonDto;
}

/** `AuthenticationResponseJSON` (WebAuthn 3, 5.1): what `credential.toJSON()` gives after `navigator.credentials.get`. */
export class AuthenticationResponseJsonDto extends CredentialJsonDto {
  @ApiProperty({ type: AssertionResponseJsonDto })
  @ValidateNested()
  @Type(() => AssertionResponseJsonDto)
  response!: AssertionResponseJsonDto;
}
