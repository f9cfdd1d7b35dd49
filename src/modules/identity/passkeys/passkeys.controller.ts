import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import {
  BrowserSessionOnly,
  CurrentCredential,
  MinorAccess,
  NotWhileImpersonating,
  ReadOperation,
  StepUp,
} from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { PasskeyDto, PasskeyListDto, RegisterPasskeyDto, RenamePasskeyDto } from './dto/passkey.dto';
import { PublicKeyCredentialCreationOptionsJsonDto } from './dto/webauthn.dto';
import { PASSKEY_REGISTER_ACCOUNT, PASSKEY_REGISTRATION_OPTIONS_ACCOUNT } from './passkeys.limits';
import { PasskeysEnabledGuard } from './passkeys-enabled.guard';
import { PasskeysService } from './passkeys.service';

const OFF = ' With `PASSKEYS_ENABLED=false`: 404 `feature_disabled`.';

@ApiTags('users')
@Controller('me/passkeys')
@UseGuards(PasskeysEnabledGuard)
@BrowserSessionOnly()
export class PasskeysController {
  constructor(private readonly passkeys: PasskeysService) {}

  @Post('registration-options')
  @HttpCode(200)
  @ReadOperation()
  @StepUp()
  @NotWhileImpersonating()
  @RateLimit(PASSKEY_REGISTRATION_OPTIONS_ACCOUNT)
  @ApiOperation({
    summary: 'Start adding a passkey',
    description:
      'Answers `PublicKeyCredentialCreationOptionsJSON` for `navigator.credentials.create` (after ' +
      '`PublicKeyCredential.parseCreationOptionsFromJSON`): a discoverable credential (`residentKey: required`), ' +
      '`userVerification: preferred`, attestation `none`, `excludeCredentials` = your passkeys. The challenge is ' +
      'single use and lasts 5 minutes. 409 `passkey_limit_reached` at 10 passkeys.' +
      OFF,
  })
  @ApiOkResponse({ type: PublicKeyCredentialCreationOptionsJsonDto })
  @ApiErrors([404, 'feature_disabled'], [409, 'passkey_limit_reached'], [403, 'impersonation_restricted'])
  registrationOptions(@CurrentCredential() credential: Credential): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return this.passkeys.registrationOptions(credential);
  }

  @Post()
  @StepUp()
  @NotWhileImpersonating()
  @MinorAccess('always')
  @RateLimit(PASSKEY_REGISTER_ACCOUNT)
  @ApiOperation({
    summary: 'Add a passkey',
    description:
      'Takes the `RegistrationResponseJSON` of `navigator.credentials.create` (`credential.toJSON()`), verified ' +
      'against the challenge of `registration-options` (this session, 5 minutes, single use), the RP ID and the ' +
      'allowed origins. Audited (`passkey.registered`); a security notice is emailed.' +
      OFF,
  })
  @ApiCreatedResponse({ type: PasskeyDto })
  @ApiErrors(
    [422, 'validation_error', 'passkey_verification_failed'],
    [409, 'passkey_exists', 'passkey_limit_reached'],
    [404, 'feature_disabled'],
    [403, 'impersonation_restricted'],
  )
  register(
    @CurrentCredential() credential: Credential,
    @Body() dto: RegisterPasskeyDto,
    @Client() client: ClientInfo,
  ): Promise<PasskeyDto> {
    return this.passkeys.register(credential, dto.response, dto.name, client.ip);
  }

  @Get()
  @ApiOperation({ summary: 'My passkeys', description: 'Never their public keys.' + OFF })
  @ApiOkResponse({ type: PasskeyListDto })
  @ApiErrors([404, 'feature_disabled'])
  async list(@CurrentCredential() credential: Credential): Promise<PasskeyListDto> {
    return { items: await this.passkeys.list(credential.userId) };
  }

  @Patch(':passkey_id')
  @MinorAccess('always')
  @ApiOperation({ summary: 'Rename a passkey', description: "Another person's passkey is 404." + OFF })
  @ApiOkResponse({ type: PasskeyDto })
  @ApiErrors(422, [404, 'not_found', 'feature_disabled'])
  rename(
    @CurrentCredential() credential: Credential,
    @Param('passkey_id', UuidPipe) id: string,
    @Body() dto: RenamePasskeyDto,
  ): Promise<PasskeyDto> {
    return this.passkeys.rename(credential.userId, id, dto.name);
  }

  @Delete(':passkey_id')
  @HttpCode(204)
  @StepUp()
  @NotWhileImpersonating()
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Remove a passkey',
    description:
      "Effective at once. Another person's passkey is 404. Audited (`passkey.deleted`); a security notice is emailed." +
      OFF,
  })
  @ApiNoContentResponse()
  @ApiErrors([404, 'not_found', 'feature_disabled'], [403, 'impersonation_restricted'])
  async remove(
    @CurrentCredential() credential: Credential,
    @Param('passkey_id', UuidPipe) id: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.passkeys.remove(credential.userId, id, client.ip);
  }
}
