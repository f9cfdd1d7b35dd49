import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/core/auth/access.decorators';
import { Callback, type CallbackRequest } from '@/core/http/client-info';
import { COOKIE, CookieService } from '@/core/http/cookies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { EXTERNAL_CALLBACK_IP, EXTERNAL_START_IP } from '@/modules/identity/external-auth';
import { SsoDiscoverDto, SsoDiscoveryDto, SsoStartQueryDto } from './dto/sso.dto';
import { SSO_CALLBACK_LIMITS, SsoSignInService } from './sso-sign-in.service';
import { SSO_DISCOVER_IP } from './sso.limits';

const LOCATION = { Location: { description: 'Where the browser goes', schema: { type: 'string', format: 'uri' } } };

@ApiTags('sso')
@Controller('auth/sso')
export class SsoAuthController {
  constructor(
    private readonly sso: SsoSignInService,
    private readonly cookies: CookieService,
  ) {}

  @Public()
  @Post('discover')
  @HttpCode(200)
  @RateLimit(SSO_DISCOVER_IP)
  @ApiOperation({
    summary: 'Whether an address signs in through its institution',
    description:
      "`sso` is true when the address's domain is verified by an (active) organization with an enabled connection; " +
      'then `connection_id` is the connection to start with and `enforced` says whether other methods are refused.',
  })
  @ApiOkResponse({ type: SsoDiscoveryDto })
  discover(@Body() dto: SsoDiscoverDto): Promise<SsoDiscoveryDto> {
    return this.sso.discover(dto.email);
  }

  @Public()
  @Get(':connection_id/start')
  @RateLimit(EXTERNAL_START_IP)
  @ApiParam({ name: 'connection_id', description: 'The SSO connection' })
  @ApiOperation({
    summary: "Start signing in at the institution's identity provider",
    description:
      'Redirects to the identity provider (PKCE `S256`, single-use `state` bound to this browser by the HttpOnly cookie ' +
      '`svc_sso_state`, `nonce`). 404 when the connection does not exist or is disabled; 404 `feature_disabled` when ' +
      'the deployment has no SSO.',
  })
  @ApiResponse({ status: 302, description: "To the identity provider's authorization URL", headers: LOCATION })
  @ApiErrors([404, 'not_found', 'feature_disabled'])
  async start(
    @Param('connection_id') connectionId: string,
    @Query() query: SsoStartQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    this.cookies.redirect(res, await this.sso.start(connectionId, query.login_hint));
  }

  @Public()
  @Get('callback')
  @RateLimit(EXTERNAL_CALLBACK_IP)
  @ApiOperation({
    summary: "Return from the institution's identity provider",
    description:
      'Always a redirect. Steps, in order: the state is single use and must match the `svc_sso_state` cookie ' +
      '(`sso_invalid_state`); the code is exchanged with PKCE (`sso_exchange_failed`); the ID token is validated: ' +
      'signature by the published keys, iss, aud, exp, iat, nonce, `hd` (a Google Workspace domain the organization ' +
      "verified) and `tid` (the tenant an issuer names) where applicable (`sso_invalid_token`); the address's domain " +
      "must be verified by the connection's organization (`sso_domain_not_verified`); the account is the linked " +
      "identity's, else the email's, else a new one; membership is created just in time with the role `student`; " +
      'a session is opened: `{web_url}/dashboard`, or `{web_url}/login/two-factor` on a two-factor account. Other ' +
      'failures: `sso_provider_error`, `sso_email_unverified`, `sso_connection_unavailable`, `sso_invalid_request` ' +
      '(parameters over their limits), `feature_disabled`; all as `{web_url}/login?error=<code>`. Returning from a ' +
      'connection test: `{web_url}/org/sso?test=ok` (or `?test=failed&error=<code>`), no session.',
  })
  @ApiQuery({ name: 'code', required: false, schema: { type: 'string', maxLength: SSO_CALLBACK_LIMITS.code } })
  @ApiQuery({ name: 'state', required: false, schema: { type: 'string', maxLength: SSO_CALLBACK_LIMITS.state } })
  @ApiQuery({ name: 'error', required: false, schema: { type: 'string', maxLength: SSO_CALLBACK_LIMITS.error } })
  @ApiResponse({ status: 302, description: 'To the web app', headers: LOCATION })
  async callback(@Callback(COOKIE.ssoState) callback: CallbackRequest, @Res() res: Response): Promise<void> {
    this.cookies.redirect(res, await this.sso.callback(callback));
  }
}
