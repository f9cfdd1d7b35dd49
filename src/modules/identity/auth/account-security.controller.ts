import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCredential, MinorAccess, NotWhileImpersonating, StepUp } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiError } from '@/core/http/api-error';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { CookieService } from '@/core/http/cookies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { isUuid } from '@/core/http/uuid';
import { UserDto, UsersService } from '@/modules/identity/users';
import { EMAIL_CHANGE_ACCOUNT, EMAIL_CHANGE_IP, EMAIL_CHANGE_VERIFY_ACCOUNT } from './auth.limits';
import {
  CodeDto,
  EmailChangeRequestDto,
  GenericResultDto,
  RecoveryCodesDto,
  RevokedCountDto,
  SessionListDto,
  TwoFactorSetupDto,
  TwoFactorStatusDto,
} from './dto/auth.dto';
import { EmailChangeService } from './email-change.service';
import { SessionService } from './session.service';
import { TwoFactorService } from './two-factor.service';

@ApiTags('users')
@Controller('me')
export class AccountSecurityController {
  constructor(
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorService,
    private readonly emailChange: EmailChangeService,
    private readonly users: UsersService,
    private readonly cookies: CookieService,
  ) {}

  @Get('sessions')
  @ApiOperation({ summary: 'The live sessions, one per device; the current one is marked' })
  @ApiOkResponse({ type: SessionListDto })
  async listSessions(@CurrentCredential() credential: Credential): Promise<SessionListDto> {
    const sessions = await this.sessions.list(credential.userId);
    return {
      items: sessions.map((s) => ({
        id: s.id,
        device: s.device,
        created_at: s.created_at.toISOString(),
        last_seen_at: s.last_seen_at.toISOString(),
        current: s.id === credential.sessionId,
      })),
    };
  }

  @Post('sessions/revoke-others')
  @MinorAccess('always')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign out every other session',
    description:
      "Raises `token_version` (every other access token stops working at once) and renews this session's cookies.",
  })
  @ApiOkResponse({ type: RevokedCountDto })
  async revokeOthers(
    @CurrentCredential() credential: Credential,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RevokedCountDto> {
    const revoked = await this.sessions.revokeOthers(credential.userId, credential.sessionId, 'revoked_by_user');
    await this.users.raiseTokenVersion(credential.userId);
    if (credential.sessionId) {
      this.cookies.apply(
        res,
        await this.sessions.renew(await this.users.getById(credential.userId), credential.sessionId),
      );
    }
    return { revoked };
  }

  @Delete('sessions/:session_id')
  @MinorAccess('always')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Sign out one session',
    description: "Another person's session is 404. Signing out the current one clears its cookies.",
  })
  @ApiNoContentResponse()
  @ApiErrors(404)
  async revokeSession(
    @CurrentCredential() credential: Credential,
    @Param('session_id') sessionId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    if (!isUuid(sessionId) || !(await this.sessions.revoke(sessionId, credential.userId, 'revoked_by_user'))) {
      throw ApiError.notFound('No such session.');
    }
    if (sessionId === credential.sessionId) this.cookies.apply(res, this.sessions.endedCookies());
  }

  @Get('two-factor')
  @ApiOperation({ summary: 'Two-factor status' })
  @ApiOkResponse({ type: TwoFactorStatusDto })
  twoFactorStatus(@CurrentCredential() credential: Credential): Promise<TwoFactorStatusDto> {
    return this.twoFactor.status(credential.userId);
  }

  @Post('two-factor/setup')
  @NotWhileImpersonating()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start two-factor setup',
    description: 'Returns the secret, the otpauth:// URI and a QR code (SVG). Nothing is required at sign-in yet.',
  })
  @ApiOkResponse({ type: TwoFactorSetupDto })
  @ApiErrors([409, 'two_factor_already_enabled'], [403, 'impersonation_restricted'])
  setupTwoFactor(@CurrentCredential() credential: Credential): Promise<TwoFactorSetupDto> {
    return this.twoFactor.setup(credential);
  }

  @Post('two-factor/enable')
  @NotWhileImpersonating()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enable two-factor with a code from the app',
    description: 'Returns 10 recovery codes, shown once; emails a notice.',
  })
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiErrors(
    [400, 'invalid_totp'],
    [409, 'two_factor_not_started', 'two_factor_already_enabled'],
    [403, 'impersonation_restricted'],
  )
  enableTwoFactor(
    @CurrentCredential() credential: Credential,
    @Body() dto: CodeDto,
    @Client() client: ClientInfo,
  ): Promise<RecoveryCodesDto> {
    return this.twoFactor.enable(credential, dto.code, client.ip);
  }

  @Post('two-factor/disable')
  @NotWhileImpersonating()
  @HttpCode(204)
  @StepUp()
  @ApiOperation({ summary: 'Disable two-factor', description: 'Needs a recent step-up; emails a notice.' })
  @ApiNoContentResponse()
  @ApiErrors([409, 'two_factor_not_enabled'], [403, 'impersonation_restricted'])
  async disableTwoFactor(@CurrentCredential() credential: Credential, @Client() client: ClientInfo): Promise<void> {
    await this.twoFactor.disable(credential, client.ip);
  }

  @Post('two-factor/recovery-codes')
  @NotWhileImpersonating()
  @HttpCode(200)
  @StepUp()
  @ApiOperation({
    summary: 'Replace the recovery codes',
    description: 'Needs a recent step-up; the previous codes stop working.',
  })
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiErrors([409, 'two_factor_not_enabled'], [403, 'impersonation_restricted'])
  regenerateRecoveryCodes(@CurrentCredential() credential: Credential): Promise<RecoveryCodesDto> {
    return this.twoFactor.regenerateRecoveryCodes(credential);
  }

  @Post('email-change')
  @NotWhileImpersonating()
  @HttpCode(202)
  @StepUp()
  @RateLimit(EMAIL_CHANGE_ACCOUNT, EMAIL_CHANGE_IP)
  @ApiOperation({
    summary: 'Ask to change the sign-in address',
    description:
      'Sends a 6-digit code (10 minutes, 5 attempts) to the NEW address. Always 202 `sent`: when the address belongs to ' +
      'another account nothing is sent and this is not revealed.',
  })
  @ApiAcceptedResponse({ type: GenericResultDto })
  @ApiErrors([422, 'validation_error', 'same_email'], [403, 'impersonation_restricted'])
  async requestEmailChange(
    @CurrentCredential() credential: Credential,
    @Body() dto: EmailChangeRequestDto,
  ): Promise<GenericResultDto> {
    await this.emailChange.request(credential, dto.email);
    return { status: 'sent' };
  }

  @Post('email-change/verify')
  @NotWhileImpersonating()
  @HttpCode(200)
  @StepUp()
  @RateLimit(EMAIL_CHANGE_VERIFY_ACCOUNT)
  @ApiOperation({
    summary: 'Confirm the new address',
    description:
      "Changes the address, renews this session's cookies, closes the other sessions and notifies the old address.",
  })
  @ApiOkResponse({ type: UserDto })
  @ApiErrors([400, 'invalid_otp'], [409, 'email_taken'], [403, 'impersonation_restricted'])
  async verifyEmailChange(
    @CurrentCredential() credential: Credential,
    @Body() dto: CodeDto,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserDto> {
    const { user, cookies } = await this.emailChange.verify(credential, dto.code, client.ip);
    this.cookies.apply(res, cookies);
    return this.users.toDto(user);
  }
}
