import { Controller, Get, Header, Param, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCredential, Public } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  AchievementDto,
  CredentialStatusDto,
  IssuerProfileDto,
  JwksDto,
  OpenBadgeCredentialDto,
  OpenBadgeQueryDto,
} from './dto/open-badge.dto';
import { STATUS_IP } from './open-badges.limits';
import { OpenBadgesService } from './open-badges.service';

const OFF = 'When Open Badges are off (`OB_ENABLED=false`) the answer is 404 `feature_disabled`.';

@ApiTags('integrations')
@Controller('public/ob')
@Public()
export class PublicOpenBadgesController {
  constructor(private readonly badges: OpenBadgesService) {}

  @Get('jwks')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: 'The issuer’s public keys (JWK set)',
    description: `The Ed25519 key that signs every Open Badges credential, with its \`kid\` (the JWS header names it). ${OFF}`,
  })
  @ApiOkResponse({ type: JwksDto })
  @ApiErrors([404, 'feature_disabled'])
  jwks(): Promise<JwksDto> {
    return this.badges.jwks();
  }

  @Get('issuers/:org_id')
  @ApiOperation({
    summary: 'An organization’s issuer profile (Open Badges 3.0 Profile)',
    description:
      '`id` is this URL; `image` the organization’s logo when it has one. 404 unless the organization issued at ' +
      `least one credential that is not revoked. ${OFF}`,
  })
  @ApiOkResponse({ type: IssuerProfileDto })
  @ApiErrors(404)
  issuer(@Param('org_id') organizationId: string): Promise<IssuerProfileDto> {
    return this.badges.issuer(organizationId);
  }

  @Get('achievements/:achievement_id')
  @ApiOperation({
    summary: 'An achievement: a course or program of an issued credential',
    description:
      'The achievement a credential names (its id is a course or program id). 404 unless at least one credential ' +
      `for it was issued and is not revoked. ${OFF}`,
  })
  @ApiOkResponse({ type: AchievementDto })
  @ApiErrors(404)
  achievement(@Param('achievement_id') achievementId: string): Promise<AchievementDto> {
    return this.badges.achievement(achievementId);
  }

  @Get('credentials/:certificate_id/status')
  @RateLimit(STATUS_IP)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Whether a credential still stands',
    description:
      '`revoked: true` for a revoked certificate; a replaced one (reissued with a corrected name) is ' +
      '`revoked: false` with `replaced_by` (the new code): it stays valid in history but is superseded. ' +
      `The same facts are at the certificate’s verification route (its \`credentialStatus.id\`). ${OFF}`,
  })
  @ApiOkResponse({ type: CredentialStatusDto })
  @ApiErrors(404)
  status(@Param('certificate_id') certificateId: string): Promise<CredentialStatusDto> {
    return this.badges.status(certificateId);
  }
}

@ApiTags('integrations')
@ApiExtraModels(OpenBadgeCredentialDto)
@Controller('me/certificates')
export class MyOpenBadgesController {
  constructor(private readonly badges: OpenBadgesService) {}

  @Get(':certificate_id/open-badge')
  @ApiOperation({
    summary: 'My certificate as an Open Badges 3.0 credential',
    description:
      'An OpenBadgeCredential (W3C Verifiable Credentials 2.0) signed as a JWT VC: `alg: EdDSA`, `typ: vc+jwt`, ' +
      '`kid` of `GET /public/ob/jwks`; claims `vc` (the credential), `iss` (the issuer profile id), `sub` and ' +
      '`jti` (`urn:uuid:<certificate id>`), `nbf` and `iat` (the issue time). `format=json` answers the ' +
      'credential object unsigned. The holder is identified by a salted SHA-256 of their email, never by name. ' +
      `Another person’s certificate is 404 (and, with a personal token, one of another organization). ${OFF}`,
  })
  @ApiProduces('application/vc+jwt', 'application/json')
  @ApiOkResponse({
    description: 'The signed credential (`application/vc+jwt`), or with `format=json` the credential object',
    content: {
      'application/vc+jwt': { schema: { type: 'string', example: 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiJ9...' } },
      'application/json': { schema: { $ref: '#/components/schemas/OpenBadgeCredentialDto' } },
    },
  })
  @ApiErrors(404, 422)
  async mine(
    @CurrentCredential() credential: Credential,
    @Param('certificate_id') certificateId: string,
    @Query() query: OpenBadgeQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | OpenBadgeCredentialDto> {
    const format = query.format ?? 'jwt';
    const body = await this.badges.mine(credential, certificateId, format);
    res.setHeader('Cache-Control', 'private, no-store');
    if (format === 'jwt') res.setHeader('Content-Type', 'application/vc+jwt');
    return body;
  }
}
