import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/core/auth/access.decorators';
import { Callback, type CallbackRequest } from '@/core/http/client-info';
import { COOKIE, CookieService } from '@/core/http/cookies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { EXTERNAL_CALLBACK_IP, EXTERNAL_START_IP } from './external-auth.limits';
import { CALLBACK_LIMITS, PROVIDERS, ProviderSignInService } from './provider-sign-in.service';

const LOCATION = { Location: { description: 'Where the browser goes', schema: { type: 'string', format: 'uri' } } };

@ApiTags('auth')
@ApiParam({ name: 'provider', enum: PROVIDERS, description: 'The external identity provider' })
@Controller('auth/oauth')
export class ExternalAuthController {
  constructor(
    private readonly providers: ProviderSignInService,
    private readonly cookies: CookieService,
  ) {}

  @Public()
  @Get(':provider/start')
  @RateLimit(EXTERNAL_START_IP)
  @ApiOperation({
    summary: 'Start signing in with an external provider',
    description:
      "Redirects to the provider's authorization endpoint (OpenID Connect discovery of its issuer) with client_id, " +
      'redirect_uri `{base_url}/api/v1/auth/oauth/{provider}/callback`, scope `openid email profile`, a single-use ' +
      '`state` (only its SHA-256 is stored), a `nonce` and PKCE (`S256`). The state is bound to this browser by the ' +
      'HttpOnly cookie `svc_oauth_state` (SameSite=Lax, path `/api/v1/auth`, 10 minutes). When the provider cannot ' +
      'be reached the redirect goes to `{web_url}/login?error=oauth_provider_unavailable`.',
  })
  @ApiResponse({ status: 302, description: "To the provider's authorization URL", headers: LOCATION })
  @ApiErrors([400, 'unknown_provider'], [503, 'oauth_not_configured'])
  async start(@Param('provider') provider: string, @Res() res: Response): Promise<void> {
    this.cookies.redirect(res, await this.providers.start(provider));
  }

  @Public()
  @Get(':provider/callback')
  @RateLimit(EXTERNAL_CALLBACK_IP)
  @ApiOperation({
    summary: 'Return from an external provider',
    description:
      'Always a redirect, never a body. Success: `{web_url}/dashboard` with the session cookies; an account with ' +
      'two-factor: `{web_url}/login/two-factor` (challenge cookie `svc_2fa` set). Any failure: ' +
      '`{web_url}/login?error=<code>` with `oauth_invalid_state` (no state cookie, another browser, unknown, used or ' +
      'expired state), `oauth_provider_error` (the provider sent `error`), `oauth_exchange_failed`, ' +
      '`oauth_invalid_token` (ID token signature, iss, aud, exp, iat, nonce; Microsoft `tid`), ' +
      '`oauth_email_unverified` (`email_verified` must be true; for an address whose domain an organization ' +
      'verified, a Google account must belong to that Workspace, `hd`), `sso_required` (the domain enforces SSO), ' +
      '`oauth_invalid_request` (over-long parameters). The account is the one linked to the identity (issuer + ' +
      'subject), else the one of the verified email (then linked), else a new one. `svc_oauth_state` is cleared.',
  })
  @ApiQuery({ name: 'code', required: false, schema: { type: 'string', maxLength: CALLBACK_LIMITS.code } })
  @ApiQuery({ name: 'state', required: false, schema: { type: 'string', maxLength: CALLBACK_LIMITS.state } })
  @ApiQuery({ name: 'error', required: false, schema: { type: 'string', maxLength: CALLBACK_LIMITS.error } })
  @ApiResponse({
    status: 302,
    description: 'To the web app (dashboard, two-factor step or login with an error)',
    headers: LOCATION,
  })
  async callback(
    @Param('provider') provider: string,
    @Callback(COOKIE.oauthState) callback: CallbackRequest,
    @Res() res: Response,
  ): Promise<void> {
    this.cookies.redirect(res, await this.providers.callback(provider, callback));
  }
}
