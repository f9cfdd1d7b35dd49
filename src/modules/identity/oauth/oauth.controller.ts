import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { BrowserSessionOnly, CurrentCredential, NotWhileImpersonating, Public } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { optionalCookieSession } from '@/core/auth/strategies';
import { rawQueryOf } from '@/core/http/client-info';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { AuthorizationService, type AuthorizeReply } from './authorization.service';
import { ClientRegistrationService } from './client-registration.service';
import {
  AuthorizeDecisionDto,
  ClientRegistrationDto,
  ClientRegistrationRequestDto,
  OAuthErrorDto,
  RevocationRequestDto,
  TokenRequestDto,
  TokenResponseDto,
} from './dto/oauth.dto';
import { OAuthError, sendOAuthError } from './oauth-errors';
import { AUTHORIZE_IP, DECISION_ACCOUNT, REGISTER_IP, REVOKE_IP, TOKEN_IP } from './oauth.limits';
import { sendPage } from './pages';
import { TokenService } from './token.service';

const HTML = { 'text/html': { schema: { type: 'string' } } };
const OAUTH_ERROR = { 'application/json': { schema: { $ref: '#/components/schemas/OAuthErrorDto' } } };
const LOCATION = { Location: { description: 'Where the browser goes', schema: { type: 'string', format: 'uri' } } };
const FORM = 'application/x-www-form-urlencoded';
const JSON_BODY = 'application/json';

/** Answers an OAuth protocol endpoint: the result, or the RFC error body for an OAuthError. */
async function protocol(res: Response, status: number, work: () => Promise<unknown>): Promise<void> {
  try {
    const body = await work();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    if (body === undefined) res.status(status).end();
    else res.status(status).json(body);
  } catch (err) {
    if (err instanceof OAuthError) sendOAuthError(res, err);
    else throw err;
  }
}

function reply(res: Response, outcome: AuthorizeReply, redirectStatus: 302 | 303): void {
  if (outcome.kind === 'page') sendPage(res, outcome.page);
  else {
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(redirectStatus, outcome.location);
  }
}

@ApiTags('oauth')
@ApiExtraModels(OAuthErrorDto)
@Controller('oauth')
export class OAuthController {
  constructor(
    private readonly authorization: AuthorizationService,
    private readonly tokens: TokenService,
    private readonly registration: ClientRegistrationService,
  ) {}

  @Public()
  @Post('register')
  @RateLimit(REGISTER_IP)
  @ApiOperation({
    summary: 'Register a client (RFC 7591)',
    description:
      'Public clients only (`token_endpoint_auth_method: none`): the authorization code grant with PKCE, plus ' +
      'refresh tokens when `grant_types` lists them; scope `svc`. Redirect URIs are https, or http on a loopback ' +
      'address (127.0.0.1, [::1], localhost), without fragment. Errors use the RFC body `{error, error_description}` ' +
      '(`invalid_redirect_uri`, `invalid_client_metadata`; a body that is not JSON, malformed or holds NUL: ' +
      '`invalid_request`, 413 when larger than 1 MB), not the envelope.',
  })
  @ApiBody({ type: ClientRegistrationRequestDto })
  @ApiCreatedResponse({ type: ClientRegistrationDto })
  @ApiResponse({
    status: 400,
    description: '`invalid_redirect_uri`, `invalid_client_metadata` or `invalid_request`',
    content: OAUTH_ERROR,
  })
  @ApiResponse({ status: 413, description: '`invalid_request`: the body is larger than 1 MB', content: OAUTH_ERROR })
  async register(@Body() body: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    await protocol(res, 201, async () => {
      if (!req.is(JSON_BODY)) throw new OAuthError('invalid_request', `The body must be ${JSON_BODY}.`);
      return this.registration.register(body);
    });
  }

  @Public()
  @Get('authorize')
  @RateLimit(AUTHORIZE_IP)
  @ApiOperation({
    summary: 'Authorization endpoint (OAuth 2.1 code flow with PKCE)',
    description:
      '`response_type=code` only; PKCE `S256` required (missing or `plain` refused); the `redirect_uri` must match a ' +
      'registered one exactly (a loopback IP literal may change its port); `state` is passed back; `resource` ' +
      '(RFC 8707), when sent, must be `{base_url}/api/v1` (`invalid_target`); scope `svc` (default). Before the ' +
      'client and redirect URI are trusted (unknown client, bad redirect URI) errors are an HTML page (400), never a ' +
      'redirect; after that they redirect with `error`, `error_description`, `state` and `iss`. Without a browser ' +
      'session: 302 to `{web_url}/login?next=<this URL>`. With one: the consent page (HTML, not frameable) whose ' +
      'form posts to `/api/v1/oauth/authorize/decision`.',
  })
  @ApiQuery({ name: 'response_type', required: true, schema: { type: 'string', enum: ['code'] } })
  @ApiQuery({ name: 'client_id', required: true, schema: { type: 'string', maxLength: 2048 } })
  @ApiQuery({ name: 'redirect_uri', required: true, schema: { type: 'string', format: 'uri', maxLength: 2048 } })
  @ApiQuery({ name: 'code_challenge', required: true, schema: { type: 'string', minLength: 43, maxLength: 43 } })
  @ApiQuery({ name: 'code_challenge_method', required: true, schema: { type: 'string', enum: ['S256'] } })
  @ApiQuery({ name: 'state', required: false, schema: { type: 'string', maxLength: 2048 } })
  @ApiQuery({ name: 'scope', required: false, schema: { type: 'string', enum: ['svc'] } })
  @ApiQuery({ name: 'resource', required: false, schema: { type: 'string', format: 'uri', maxLength: 2048 } })
  @ApiResponse({ status: 200, description: 'The consent page', content: HTML })
  @ApiResponse({
    status: 302,
    description: 'To the login page, or back to the client with an error',
    headers: LOCATION,
  })
  @ApiResponse({ status: 400, description: 'Error page (unknown client, redirect URI not registered)', content: HTML })
  @ApiResponse({
    status: 403,
    description: 'Error page (impersonation, account without adult declaration)',
    content: HTML,
  })
  async authorize(@Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await optionalCookieSession(req, res);
    reply(res, await this.authorization.authorize(req.query, rawQueryOf(req), session), 302);
  }

  @Post('authorize/decision')
  @BrowserSessionOnly()
  @NotWhileImpersonating()
  @RateLimit(DECISION_ACCOUNT)
  @ApiConsumes(FORM)
  @ApiOperation({
    summary: 'Answer the consent page',
    description:
      'Posted by the consent page with the browser session: `request_id`, `csrf_token` (bound to the session), ' +
      "`organization_id` (one of the person's active organizations), `access` (`read` or `write`; learners only " +
      '`read`) and `decision`. Approve: 303 to the redirect URI with `code` (single use, 60 s), `state` and `iss`. ' +
      "Deny: 303 with `error=access_denied`. A wrong CSRF token, an organization that is not the person's, or write " +
      'access for a learner: 403 page, nothing issued.',
  })
  @ApiResponse({ status: 303, description: 'Back to the client', headers: LOCATION })
  @ApiResponse({ status: 400, description: 'Error page (request expired or already answered)', content: HTML })
  @ApiResponse({ status: 403, description: 'Error page (refused)', content: HTML })
  async decide(
    @CurrentCredential() credential: Credential,
    @Body() dto: AuthorizeDecisionDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    reply(res, await this.authorization.decide(credential, dto, req.ip), 303);
  }

  @Public()
  @Post('token')
  @RateLimit(TOKEN_IP)
  @ApiConsumes(FORM)
  @ApiOperation({
    summary: 'Token endpoint',
    description:
      'Form-encoded. `authorization_code`: `code`, `redirect_uri` (as in the request), `client_id`, `code_verifier`; ' +
      'a code works once within 60 s, and presenting it again revokes every token it produced. `refresh_token`: ' +
      'rotation (each refresh token works once) with reuse detection (a rotated-out token revokes the whole ' +
      'authorization). Access tokens `svc_oat_...` (opaque, 1 hour) act in the chosen organization with the chosen ' +
      "access and the person's role there. Errors: the RFC 6749 body (`invalid_request` (also for a body that is " +
      'not a form, holds NUL, or is larger than 100 kB: 413), `invalid_client` (401), ' +
      '`invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `invalid_target`).',
  })
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, description: 'OAuth error', content: OAUTH_ERROR })
  @ApiResponse({ status: 413, description: '`invalid_request`: the body is larger than 100 kB', content: OAUTH_ERROR })
  @ApiResponse({ status: 401, description: '`invalid_client`', content: OAUTH_ERROR })
  async token(@Req() req: Request, @Res() res: Response): Promise<void> {
    await protocol(res, 200, async () => {
      if (!req.is(FORM)) throw new OAuthError('invalid_request', `The body must be ${FORM}.`);
      return this.tokens.token(req.body);
    });
  }

  @Public()
  @Post('revoke')
  @HttpCode(200)
  @RateLimit(REVOKE_IP)
  @ApiConsumes(FORM)
  @ApiOperation({
    summary: 'Revoke a token (RFC 7009)',
    description:
      'Form-encoded `token` (access or refresh), optional `token_type_hint` and `client_id`. 200 whether or not the ' +
      'token was valid. A refresh token revokes its whole authorization; an access token only itself.',
  })
  @ApiBody({ type: RevocationRequestDto })
  @ApiOkResponse({ description: 'Revoked, or nothing to revoke' })
  @ApiResponse({
    status: 400,
    description: '`invalid_request` (no token, not a form, NUL in a parameter)',
    content: OAUTH_ERROR,
  })
  @ApiResponse({ status: 413, description: '`invalid_request`: the body is larger than 100 kB', content: OAUTH_ERROR })
  async revoke(@Req() req: Request, @Res() res: Response): Promise<void> {
    await protocol(res, 200, async () => {
      if (!req.is(FORM)) throw new OAuthError('invalid_request', `The body must be ${FORM}.`);
      await this.tokens.revoke(req.body);
      return undefined;
    });
  }
}
