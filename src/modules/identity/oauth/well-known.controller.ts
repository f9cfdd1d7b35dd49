import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/core/auth/access.decorators';
import { AuthorizationServerMetadataDto, ProtectedResourceMetadataDto } from './dto/oauth.dto';
import { OAuthServer } from './oauth-server';

/** Public metadata: readable from any origin (no credentials involved), cacheable for an hour. */
function sendMetadata(res: Response, body: Record<string, unknown>): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cache-Control', 'public, max-age=3600');
  res.status(200).json(body);
}

@ApiTags('oauth')
@Public()
@Controller('.well-known')
export class WellKnownController {
  constructor(private readonly server: OAuthServer) {}

  @Get('oauth-authorization-server')
  @ApiOperation({
    summary: 'Authorization server metadata (RFC 8414)',
    description:
      'The issuer is `{app_url}` (which serves this document too); the endpoints live under `{base_url}/api/v1/oauth`. ' +
      'Authorization code with PKCE S256 only, public clients, dynamic registration, revocation, scope `svc`.',
  })
  @ApiOkResponse({ type: AuthorizationServerMetadataDto })
  authorizationServer(@Res() res: Response): void {
    sendMetadata(res, this.server.authorizationServerMetadata());
  }

  @Get('oauth-protected-resource')
  @ApiOperation({
    summary: 'Protected resource metadata (RFC 9728)',
    description:
      'The API (`resource` `{base_url}/api/v1`) and its authorization server. A 401 of the API points here with ' +
      '`WWW-Authenticate: Bearer resource_metadata="..."`.',
  })
  @ApiOkResponse({ type: ProtectedResourceMetadataDto })
  protectedResource(@Res() res: Response): void {
    sendMetadata(res, this.server.protectedResourceMetadata());
  }

  @Get('oauth-protected-resource/api/v1')
  @ApiOperation({
    summary: 'Protected resource metadata of /api/v1 (RFC 9728 path form)',
    description: 'The same document at the address RFC 9728 section 3.1 derives from the resource `{base_url}/api/v1`.',
  })
  @ApiOkResponse({ type: ProtectedResourceMetadataDto })
  protectedResourceByPath(@Res() res: Response): void {
    sendMetadata(res, this.server.protectedResourceMetadata());
  }
}
