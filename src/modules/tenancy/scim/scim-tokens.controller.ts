import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { StepUp } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import { CreateScimTokenDto, CreatedScimTokenDto, ScimActivityListDto, ScimTokenListDto } from './dto/scim-token.dto';
import { ScimTokensService } from './scim-tokens.service';

/** The SCIM tokens of an organization and its SCIM activity (extensions-v3 2.1 and 2.5); owners and admins. */
@ApiTags('scim')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@OrgScoped()
@Roles('owner', 'admin')
@Controller('organizations/:org_id/scim')
export class ScimTokensController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tokens: ScimTokensService,
  ) {}

  @Get('tokens')
  @ApiOperation({ summary: "The organization's live SCIM tokens (no secrets)" })
  @ApiOkResponse({ type: ScimTokenListDto })
  @ApiErrors([404, 'feature_disabled'])
  async list(@CurrentMembership() membership: Membership): Promise<ScimTokenListDto> {
    this.enabled();
    return { items: await this.tokens.list(membership.organizationId) };
  }

  @Post('tokens')
  @StepUp()
  @ApiOperation({
    summary: 'Create a SCIM token',
    description:
      'For the identity provider (Entra ID, Okta...): base URL `{base_url}/scim/v2`, this token as the bearer ' +
      'secret. The token (`svc_scim_...`) is shown only in this response; only its SHA-256 is kept. People it ' +
      'provisions join with `default_role`. At most 5 live tokens: 409 `scim_token_limit_reached`. Audited ' +
      '(`scim_token.created`).',
  })
  @ApiCreatedResponse({ type: CreatedScimTokenDto })
  @ApiErrors([404, 'feature_disabled'], [409, 'scim_token_limit_reached'], [422, 'validation_error'])
  create(
    @CurrentMembership() membership: Membership,
    @Body() dto: CreateScimTokenDto,
    @Req() req: Request,
  ): Promise<CreatedScimTokenDto> {
    this.enabled();
    return this.tokens.create(membership, dto, req.ip);
  }

  @Delete('tokens/:id')
  @StepUp()
  @HttpCode(204)
  @ApiParam({ name: 'id', format: 'uuid', description: 'The SCIM token record (its id, never the secret)' })
  @ApiOperation({
    summary: 'Revoke a SCIM token',
    description: 'Refused at once on every instance. Audited (`scim_token.revoked`).',
  })
  @ApiNoContentResponse()
  @ApiErrors([404, 'not_found'])
  async revoke(
    @CurrentMembership() membership: Membership,
    @Param('id', UuidPipe) tokenId: string,
    @Req() req: Request,
  ): Promise<void> {
    this.enabled();
    await this.tokens.revoke(membership, tokenId.toLowerCase(), req.ip);
  }

  @Get('activity')
  @ApiOperation({
    summary: 'The last 500 SCIM requests',
    description: 'Newest first: `{at, method, path, status, detail}`, never bodies.',
  })
  @ApiOkResponse({ type: ScimActivityListDto })
  @ApiErrors([404, 'feature_disabled'])
  async activity(@CurrentMembership() membership: Membership): Promise<ScimActivityListDto> {
    this.enabled();
    return { items: await this.tokens.activity(membership.organizationId) };
  }

  private enabled(): void {
    if (!this.config.scim.enabled) throw ApiError.notFound('SCIM is switched off here.', 'feature_disabled');
  }
}
