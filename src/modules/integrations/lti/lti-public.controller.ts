import { Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@/core/auth/access.decorators';
import { optionalCookieSession } from '@/core/auth/strategies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { LtiJwksDto } from './dto/lti.dto';
import { LtiEnabledGuard } from './lti-enabled.guard';
import { sendErrorPage, sendFormPost } from './lti-html';
import { LtiKeysService } from './lti-keys.service';
import { type AuthorizeParams, AuthorizeRefusal, LtiLaunchService } from './lti-launch.service';
import { LTI_AUTHORIZE_IP, LTI_REGISTER_IP } from './lti.limits';
import { LtiRegistrationsService } from './lti-registrations.service';
import { LtiProtocolErrors, LtiServiceError, sendLtiServiceError } from './lti-service-errors';

const PARAMS = [
  'scope',
  'response_type',
  'response_mode',
  'prompt',
  'client_id',
  'redirect_uri',
  'login_hint',
  'lti_message_hint',
  'state',
  'nonce',
] as const;

/** The platform's public LTI endpoints that tools and browsers reach without a credential of this service. */
@ApiTags('lti')
@Public()
@UseGuards(LtiEnabledGuard)
@Controller('lti')
export class LtiPublicController {
  constructor(
    private readonly keys: LtiKeysService,
    private readonly launch: LtiLaunchService,
    private readonly registrations: LtiRegistrationsService,
  ) {}

  @Get('registrations/:registration_id/openid-configuration')
  @ApiOperation({
    summary: "The platform's OpenID configuration for a dynamic registration",
    description:
      'With the `https://purl.imsglobal.org/spec/lti-platform-configuration` claim. 404 when unknown, used or expired.',
  })
  @ApiOkResponse({ description: 'OpenID Provider configuration' })
  @ApiErrors(404)
  openIdConfiguration(@Param('registration_id') id: string): Promise<Record<string, unknown>> {
    return this.registrations.openIdConfiguration(id);
  }

  @Post('registrations/:registration_id/register')
  @RateLimit(LTI_REGISTER_IP)
  @ApiOperation({
    summary: 'A tool registers itself (OpenID client registration with the LTI tool configuration)',
    description:
      'Bearer = the registration token (single use). 201 the registration with `client_id` and the claim’s ' +
      '`deployment_id`; 401 bad token; 400 RFC 7591 errors (`invalid_client_metadata`, `invalid_redirect_uri`).',
  })
  @ApiOkResponse({ description: 'The registration (201)' })
  @LtiProtocolErrors(400, 401)
  async register(
    @Param('registration_id') id: string,
    @Body() body: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    try {
      const registration = await this.registrations.register(id, req.headers.authorization, body);
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(registration);
    } catch (err) {
      if (err instanceof LtiServiceError) sendLtiServiceError(res, err);
      else throw err;
    }
  }

  @Get('jwks')
  @ApiOperation({
    summary: "The platform's public keys (JWKS)",
    description:
      'RS256 keys with `kid`; tools verify id_tokens and deep-linking requests with them. A rotated key stays listed ' +
      '7 days. `Cache-Control: max-age=300`.',
  })
  @ApiOkResponse({ type: LtiJwksDto })
  @ApiErrors([404, 'feature_disabled'])
  async jwks(@Res({ passthrough: true }) res: Response): Promise<LtiJwksDto> {
    res.setHeader('Cache-Control', 'public, max-age=300');
    return this.keys.jwks();
  }

  @Get('authorize')
  @RateLimit(LTI_AUTHORIZE_IP)
  @ApiOperation({
    summary: 'OIDC authentication request of a tool (LTI launch, step 2)',
    description:
      'GET or POST with `scope=openid`, `response_type=id_token`, `response_mode=form_post`, `prompt=none`, ' +
      '`client_id`, `redirect_uri`, `login_hint`, `lti_message_hint`, `state`, `nonce`. The browser session must be ' +
      'the person the login hint names. Answers 200 `text/html` posting `id_token` and `state` to `redirect_uri`; ' +
      'errors go to a registered `redirect_uri` as `error` (`login_required`, `invalid_request`, ' +
      '`unauthorized_client`, `access_denied`), else 400 `text/html`.',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'An auto-submitting form', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({
    status: 400,
    description: 'text/html: no registered redirect URI to answer at',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  authorizeGet(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.authorize(req, res);
  }

  @Post('authorize')
  @HttpCode(200)
  @RateLimit(LTI_AUTHORIZE_IP)
  @ApiOperation({
    summary: 'OIDC authentication request of a tool, as a form post',
    description:
      'GET or POST with `scope=openid`, `response_type=id_token`, `response_mode=form_post`, `prompt=none`, ' +
      '`client_id`, `redirect_uri`, `login_hint`, `lti_message_hint`, `state`, `nonce`. The browser session must be ' +
      'the person the login hint names. Answers 200 `text/html` posting `id_token` and `state` to `redirect_uri`; ' +
      'errors go to a registered `redirect_uri` as `error` (`login_required`, `invalid_request`, ' +
      '`unauthorized_client`, `access_denied`), else 400 `text/html`.',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'An auto-submitting form', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({
    status: 400,
    description: 'text/html: no registered redirect URI to answer at',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  authorizePost(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.authorize(req, res);
  }

  private async authorize(req: Request, res: Response): Promise<void> {
    const source = { ...(req.query as Record<string, unknown>), ...((req.body ?? {}) as Record<string, unknown>) };
    const params: AuthorizeParams = {};
    for (const name of PARAMS) {
      const v = source[name];
      if (typeof v === 'string') params[name] = v;
    }
    const credential = await optionalCookieSession(req, res).catch(() => null);
    const session =
      credential && credential.kind === 'session' && credential.sessionId
        ? { userId: credential.userId, sessionId: credential.sessionId }
        : null;
    try {
      const answer = await this.launch.authorize(params, session);
      sendFormPost(res, answer.redirectUri, answer.fields);
    } catch (err) {
      if (err instanceof AuthorizeRefusal) sendErrorPage(res, 400, err.message);
      else throw err;
    }
  }
}
