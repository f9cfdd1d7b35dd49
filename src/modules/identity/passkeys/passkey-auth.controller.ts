import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Response } from 'express';
import { BrowserSessionOnly, CurrentCredential, Public, ReadOperation } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { COOKIE, CookieService, CookieValue } from '@/core/http/cookies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { UserDto, UsersService } from '@/modules/identity/users';
import { PasskeyAssertionBodyPipe, PasskeySignInBodyPipe } from './assertion-body';
import { PasskeyAssertionDto, PasskeySignInDto, PasskeySignInOptionsDto, StepUpConfirmedDto } from './dto/passkey.dto';
import { PublicKeyCredentialRequestOptionsJsonDto } from './dto/webauthn.dto';
import { PasskeySignInService } from './passkey-sign-in.service';
import {
  PASSKEY_OPTIONS_IP,
  PASSKEY_STEP_UP_ACCOUNT,
  PASSKEY_TWO_FACTOR_VERIFY_IP,
  PASSKEY_VERIFY_IP,
} from './passkeys.limits';
import { PasskeysEnabledGuard } from './passkeys-enabled.guard';

const OFF = ' With `PASSKEYS_ENABLED=false`: 404 `feature_disabled`.';

/*
 * The verify bodies are typed by their shape, not their class, so the global ValidationPipe leaves them to their
 * own pipes (assertion-body.ts): a strict check, and the ValidationPipe on the DTO for anything else. `@ApiBody`
 * keeps the DTO in the OpenAPI description.
 */
type PasskeySignInBody = Pick<PasskeySignInDto, keyof PasskeySignInDto>;
type PasskeyAssertionBody = Pick<PasskeyAssertionDto, keyof PasskeyAssertionDto>;

@ApiTags('auth')
@Controller('auth')
@UseGuards(PasskeysEnabledGuard)
export class PasskeyAuthController {
  constructor(
    private readonly passkeys: PasskeySignInService,
    private readonly users: UsersService,
    private readonly cookies: CookieService,
  ) {}

  @Public()
  @Post('passkeys/options')
  @HttpCode(200)
  @RateLimit(PASSKEY_OPTIONS_IP)
  @ApiOperation({
    summary: 'Start a passkey sign-in',
    description:
      'Answers `PublicKeyCredentialRequestOptionsJSON` for `navigator.credentials.get` with an empty ' +
      '`allowCredentials` (discoverable credentials: the authenticator offers the person’s passkeys) and ' +
      '`userVerification: required`, plus the `challenge_id` to send back. Single use, 5 minutes.' +
      OFF,
  })
  @ApiOkResponse({ type: PasskeySignInOptionsDto })
  @ApiErrors([404, 'feature_disabled'])
  signInOptions(): Promise<PasskeySignInOptionsDto> {
    return this.passkeys.signInOptions() as Promise<PasskeySignInOptionsDto>;
  }

  @Public()
  @Post('passkeys/verify')
  @HttpCode(200)
  @RateLimit(PASSKEY_VERIFY_IP)
  @ApiOperation({
    summary: 'Sign in with a passkey',
    description:
      'Takes the `AuthenticationResponseJSON` of `navigator.credentials.get`. A passkey with user verification is ' +
      'both factors: the answer is the one of `POST /auth/otp/verify` (the account, and the `access_token`, ' +
      '`refresh_token` and `svc_session` cookies), with no two-factor step. 401 `passkey_invalid` for an unknown, ' +
      'disabled or cloned passkey or any failed check (origin, RP ID, signature, user verification); 401 ' +
      '`challenge_expired` for a missing, used or expired challenge.' +
      OFF,
  })
  @ApiBody({ type: PasskeySignInDto })
  @ApiOkResponse({ type: UserDto })
  @ApiErrors(
    422,
    [401, 'passkey_invalid', 'challenge_expired'],
    [403, 'sso_required', 'account_suspended'],
    [404, 'feature_disabled'],
  )
  async signInVerify(
    @Body(PasskeySignInBodyPipe) dto: PasskeySignInBody,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserDto> {
    const { user, cookies } = await this.passkeys.signInVerify(dto.challenge_id, dto.response, client);
    this.cookies.apply(res, cookies);
    return this.users.toDto(user);
  }

  @Post('step-up/passkey/options')
  @HttpCode(200)
  @ReadOperation()
  @BrowserSessionOnly()
  @RateLimit(PASSKEY_STEP_UP_ACCOUNT)
  @ApiOperation({
    summary: 'Start a step-up with a passkey',
    description:
      'Options for your own passkeys (`allowCredentials`), `userVerification: required`; the challenge is bound to ' +
      'this session, single use, 5 minutes.' +
      OFF,
  })
  @ApiOkResponse({ type: PublicKeyCredentialRequestOptionsJsonDto })
  @ApiErrors([403, 'forbidden'], [404, 'feature_disabled'])
  stepUpOptions(@CurrentCredential() credential: Credential): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.passkeys.stepUpOptions(credential);
  }

  @Post('step-up/passkey/verify')
  @HttpCode(200)
  @ReadOperation()
  @BrowserSessionOnly()
  @RateLimit(PASSKEY_STEP_UP_ACCOUNT)
  @ApiOperation({
    summary: 'Confirm a step-up with a passkey',
    description:
      'Sets `svc_step_up` (10 minutes, bound to this session), as the other step-up methods. Only your own, live ' +
      'passkeys count (401 `passkey_invalid`).' +
      OFF,
  })
  @ApiBody({ type: PasskeyAssertionDto })
  @ApiOkResponse({ type: StepUpConfirmedDto })
  @ApiErrors(
    422,
    [401, 'unauthorized', 'passkey_invalid', 'challenge_expired'],
    [403, 'forbidden'],
    [404, 'feature_disabled'],
  )
  async stepUpVerify(
    @CurrentCredential() credential: Credential,
    @Body(PasskeyAssertionBodyPipe) dto: PasskeyAssertionBody,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StepUpConfirmedDto> {
    this.cookies.apply(res, await this.passkeys.stepUpVerify(credential, dto.response, client.ip));
    return { status: 'confirmed' };
  }

  @Public()
  @Post('two-factor/passkey/options')
  @HttpCode(200)
  @RateLimit(PASSKEY_OPTIONS_IP)
  @ApiOperation({
    summary: 'Start the second factor with a passkey',
    description:
      'Needs the `svc_2fa` challenge cookie of an email-code sign-in (401 when missing or expired). Options for the ' +
      'person’s passkeys, bound to that challenge, single use, 5 minutes.' +
      OFF,
  })
  @ApiOkResponse({ type: PublicKeyCredentialRequestOptionsJsonDto })
  @ApiErrors([401, 'unauthorized'], [404, 'feature_disabled'])
  twoFactorOptions(
    @CookieValue(COOKIE.twoFactor) challenge: string | undefined,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.passkeys.twoFactorOptions(challenge);
  }

  @Public()
  @Post('two-factor/passkey/verify')
  @HttpCode(200)
  @RateLimit(PASSKEY_TWO_FACTOR_VERIFY_IP)
  @ApiOperation({
    summary: 'Complete a two-factor sign-in with a passkey',
    description:
      'The answer of `POST /auth/two-factor/verify` with a TOTP code: the account and the session cookies. Only the ' +
      'person’s own, live passkeys count (401 `passkey_invalid`).' +
      OFF,
  })
  @ApiBody({ type: PasskeyAssertionDto })
  @ApiOkResponse({ type: UserDto })
  @ApiErrors(422, [401, 'unauthorized', 'passkey_invalid', 'challenge_expired'], [404, 'feature_disabled'])
  async twoFactorVerify(
    @Body(PasskeyAssertionBodyPipe) dto: PasskeyAssertionBody,
    @CookieValue(COOKIE.twoFactor) challenge: string | undefined,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserDto> {
    const { user, cookies } = await this.passkeys.twoFactorVerify(challenge, dto.response, client);
    this.cookies.apply(res, cookies);
    return this.users.toDto(user);
  }
}
