import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  BrowserSessionOnly,
  CookieSessionOnly,
  CurrentCredential,
  Public,
  ReadOperation,
} from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { COOKIE, CookieService, CookieValue } from '@/core/http/cookies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { UserDto, UsersService } from '@/modules/identity/users';
import {
  OTP_REQUEST_EMAIL,
  OTP_REQUEST_IP,
  OTP_VERIFY_EMAIL,
  OTP_VERIFY_IP,
  REFRESH_IP,
  STEP_UP_REQUEST_ACCOUNT,
  STEP_UP_VERIFY_ACCOUNT,
  TWO_FACTOR_VERIFY_IP,
} from './auth.limits';
import { CredentialView } from './credential-view';
import {
  CredentialDto,
  GenericResultDto,
  ImpersonationStatusDto,
  OtpRequestDto,
  OtpVerifyDto,
  ProvidersDto,
  SecondFactorDto,
  StepUpChallengeDto,
} from './dto/auth.dto';
import { ImpersonationService } from './impersonation.service';
import { SessionService } from './session.service';
import { SignInService } from './sign-in.service';
import { StepUpService } from './step-up.service';
import { SignInMethods } from './sign-in-methods';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly signIn: SignInService,
    private readonly sessions: SessionService,
    private readonly stepUp: StepUpService,
    private readonly impersonation: ImpersonationService,
    private readonly users: UsersService,
    private readonly credentials: CredentialView,
    private readonly methods: SignInMethods,
    private readonly cookies: CookieService,
  ) {}

  @Public()
  @Get('providers')
  @ApiOperation({
    summary: 'Available sign-in methods',
    description: 'Email code always; each external provider only when configured.',
  })
  @ApiOkResponse({ type: ProvidersDto })
  providers(): ProvidersDto {
    return { methods: this.methods.list() };
  }

  @Public()
  @Post('otp/request')
  @HttpCode(200)
  @RateLimit(OTP_REQUEST_IP, OTP_REQUEST_EMAIL)
  @ApiOperation({
    summary: 'Email a 6-digit sign-in code',
    description:
      'Answers the same whether or not an account exists (one is created at the first successful verification). ' +
      'The code lasts 10 minutes and allows 5 attempts; a new code voids the previous one.',
  })
  @ApiOkResponse({ type: GenericResultDto })
  async requestCode(@Body() dto: OtpRequestDto): Promise<GenericResultDto> {
    await this.signIn.requestCode(dto.email, dto.locale ?? 'es');
    return { status: 'sent' };
  }

  @Public()
  @Post('otp/verify')
  @HttpCode(200)
  @RateLimit(OTP_VERIFY_IP, OTP_VERIFY_EMAIL)
  @ApiOperation({
    summary: 'Sign in with the emailed code',
    description:
      'Sets `access_token`, `refresh_token` and `svc_session`. A wrong, expired, used or exhausted code, or none, is ' +
      'always 400 `invalid_otp`. On a two-factor account: 401 `two_factor_required` and the `svc_2fa` cookie (5 minutes).',
  })
  @ApiOkResponse({ type: UserDto })
  @ApiErrors([400, 'invalid_otp'], [401, 'two_factor_required'])
  async verifyCode(
    @Body() dto: OtpVerifyDto,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserDto> {
    const { user, cookies } = await this.signIn.verifyCode(dto.email, dto.code, client);
    this.cookies.apply(res, cookies);
    return this.users.toDto(user);
  }

  @Public()
  @Post('two-factor/verify')
  @HttpCode(200)
  @RateLimit(TWO_FACTOR_VERIFY_IP)
  @ApiOperation({
    summary: 'Complete a two-factor sign-in',
    description:
      'Takes a TOTP code or a recovery code; needs the `svc_2fa` challenge cookie (401 when missing or expired).',
  })
  @ApiOkResponse({ type: UserDto })
  @ApiErrors([400, 'invalid_totp'], [401, 'unauthorized'])
  async verifyTwoFactor(
    @Body() dto: SecondFactorDto,
    @CookieValue(COOKIE.twoFactor) challenge: string | undefined,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserDto> {
    const { user, cookies } = await this.signIn.completeTwoFactor(challenge, dto.code, client);
    this.cookies.apply(res, cookies);
    return this.users.toDto(user);
  }

  @Public()
  @Post('refresh')
  @HttpCode(200)
  @RateLimit(REFRESH_IP)
  @ApiOperation({
    summary: 'Rotate the session tokens',
    description:
      'Uses the `refresh_token` cookie and replaces it. A missing, invalid, expired or already rotated token is 401 and ' +
      'clears the cookies; presenting a rotated-out token revokes the whole session (reuse detection). Clients must not ' +
      'refresh in parallel.',
  })
  @ApiOkResponse({ type: UserDto })
  @ApiErrors(401)
  async refresh(
    @CookieValue(COOKIE.refresh) refreshToken: string | undefined,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserDto> {
    const { value: user, cookies } = await this.sessions.refresh(refreshToken, client);
    this.cookies.apply(res, cookies);
    return this.users.toDto(user);
  }

  @Public()
  @Post('logout')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Sign out',
    description: 'Revokes the session of the refresh token and clears the cookies. Idempotent.',
  })
  @ApiNoContentResponse()
  async logout(
    @CookieValue(COOKIE.refresh) refreshToken: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    this.cookies.apply(res, await this.sessions.logout(refreshToken));
  }

  @Get('me')
  @CookieSessionOnly()
  @ApiOperation({
    summary: 'The signed-in account',
    description: 'A cookie operation: integrations with a bearer token use `GET /api/v1/auth/credential`.',
  })
  @ApiOkResponse({ type: UserDto })
  async me(@CurrentCredential() credential: Credential): Promise<UserDto> {
    return this.users.toDto(await this.users.getById(credential.userId));
  }

  @Get('credential')
  @ApiOperation({
    summary: 'The credential of this request',
    description: 'For a bearer token: the organization it is bound to, the role there and its access.',
  })
  @ApiOkResponse({ type: CredentialDto })
  credential(@CurrentCredential() credential: Credential): Promise<CredentialDto> {
    return this.credentials.describe(credential);
  }

  @Post('step-up/request')
  @HttpCode(200)
  @ReadOperation()
  @BrowserSessionOnly()
  @RateLimit(STEP_UP_REQUEST_ACCOUNT)
  @ApiOperation({
    summary: 'Start a step-up',
    description:
      'Says how to confirm: `totp` when the account has two-factor, else `email_code` (a 6-digit code is emailed).',
  })
  @ApiOkResponse({ type: StepUpChallengeDto })
  @ApiErrors([403, 'forbidden'])
  requestStepUp(@CurrentCredential() credential: Credential): Promise<StepUpChallengeDto> {
    return this.stepUp.request(credential);
  }

  @Post('step-up/verify')
  @HttpCode(204)
  @ReadOperation()
  @BrowserSessionOnly()
  @RateLimit(STEP_UP_VERIFY_ACCOUNT)
  @ApiOperation({
    summary: 'Confirm a step-up',
    description: 'Sets `svc_step_up` (10 minutes), bound to this session.',
  })
  @ApiNoContentResponse()
  @ApiErrors([400, 'invalid_totp', 'invalid_otp'], [403, 'forbidden'])
  async verifyStepUp(
    @CurrentCredential() credential: Credential,
    @Body() dto: SecondFactorDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    this.cookies.apply(res, await this.stepUp.verify(credential, dto.code));
  }

  @Get('impersonation')
  @ApiOperation({ summary: 'Whether this session is an impersonation' })
  @ApiOkResponse({ type: ImpersonationStatusDto })
  impersonationStatus(@CurrentCredential() credential: Credential): Promise<ImpersonationStatusDto> {
    return this.impersonation.status(credential);
  }

  @Post('impersonation/end')
  @HttpCode(204)
  @ReadOperation()
  @ApiOperation({
    summary: 'End the impersonation',
    description: 'Revokes the impersonated session and clears its cookies; nothing to do otherwise. Idempotent.',
  })
  @ApiNoContentResponse()
  async endImpersonation(
    @CurrentCredential() credential: Credential,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    this.cookies.apply(res, await this.impersonation.end(credential, client.ip));
  }
}
