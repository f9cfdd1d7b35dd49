import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { StepUp } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { CookieService } from '@/core/http/cookies';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { UuidPipe } from '@/core/http/uuid';
import {
  CreateSsoConnectionDto,
  CreateSsoDomainDto,
  SsoConnectionDto,
  SsoConnectionTestDto,
  SsoDomainDto,
  SsoListQueryDto,
  UpdateSsoConnectionDto,
  UpdateSsoDomainDto,
} from './dto/sso.dto';
import { type Actor, SsoAdminService } from './sso-admin.service';
import { SsoSignInService } from './sso-sign-in.service';
import { SSO_TEST_ACCOUNT, SSO_VERIFY_ACCOUNT } from './sso.limits';

const actor = (membership: Membership, req: Request): Actor => ({ userId: membership.userId, ip: req.ip });

/** An organization's owners and admins setting up SSO; every change needs a recent step-up and is audited. */
@ApiTags('sso')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@OrgScoped()
@Roles('owner', 'admin')
@Controller('organizations/:org_id/sso')
export class SsoAdminController {
  constructor(
    private readonly admin: SsoAdminService,
    private readonly signIn: SsoSignInService,
    private readonly cookies: CookieService,
  ) {}

  @Get('connections')
  @ApiOperation({
    summary: "The organization's SSO connections",
    description: 'Most recent first; secrets are never returned.',
  })
  @ApiPageResponse(SsoConnectionDto)
  listConnections(
    @CurrentMembership() membership: Membership,
    @Query() query: SsoListQueryDto,
  ): Promise<Page<SsoConnectionDto>> {
    return this.admin.listConnections(membership.organizationId, query);
  }

  @Post('connections')
  @StepUp()
  @ApiOperation({
    summary: 'Add an SSO connection',
    description:
      "An OpenID Connect issuer of the institution with this service's client registration (redirect URI " +
      '`{base_url}/api/v1/auth/sso/callback`). The client secret is stored encrypted and never returned. Audited ' +
      '(`sso.connection_created`).',
  })
  @ApiCreatedResponse({ type: SsoConnectionDto })
  @ApiErrors([422, 'validation_error'])
  createConnection(
    @CurrentMembership() membership: Membership,
    @Body() dto: CreateSsoConnectionDto,
    @Req() req: Request,
  ): Promise<SsoConnectionDto> {
    return this.admin.createConnection(membership.organizationId, dto, actor(membership, req));
  }

  @Patch('connections/:connection_id')
  @StepUp()
  @ApiParam({ name: 'connection_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Change an SSO connection',
    description: 'Only the fields present change. Audited (`sso.connection_updated`).',
  })
  @ApiOkResponse({ type: SsoConnectionDto })
  @ApiErrors([404, 'not_found'], [422, 'validation_error'])
  updateConnection(
    @CurrentMembership() membership: Membership,
    @Param('connection_id', UuidPipe) connectionId: string,
    @Body() dto: UpdateSsoConnectionDto,
    @Req() req: Request,
  ): Promise<SsoConnectionDto> {
    return this.admin.updateConnection(membership.organizationId, connectionId, dto, actor(membership, req));
  }

  @Delete('connections/:connection_id')
  @StepUp()
  @HttpCode(204)
  @ApiParam({ name: 'connection_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Remove an SSO connection',
    description:
      'Sign-ins already started with it fail. Accounts keep their memberships. Audited (`sso.connection_deleted`).',
  })
  @ApiNoContentResponse()
  @ApiErrors([404, 'not_found'])
  async deleteConnection(
    @CurrentMembership() membership: Membership,
    @Param('connection_id', UuidPipe) connectionId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.admin.deleteConnection(membership.organizationId, connectionId, actor(membership, req));
  }

  @Post('connections/:connection_id/test')
  @HttpCode(200)
  @RateLimit(SSO_TEST_ACCOUNT)
  @ApiParam({ name: 'connection_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Try an SSO connection',
    description:
      "Returns the identity provider's authorization URL and sets the `svc_sso_state` cookie in this browser; " +
      'signing in there ends at `{web_url}/org/sso?test=ok` (or `?test=failed&error=<code>`) without opening a ' +
      'session. Works on disabled connections. 409 `sso_discovery_failed` when the issuer cannot be read. Audited ' +
      '(`sso.connection_tested`).',
  })
  @ApiOkResponse({ type: SsoConnectionTestDto })
  @ApiErrors([404, 'not_found', 'feature_disabled'], [409, 'sso_discovery_failed'])
  async testConnection(
    @CurrentMembership() membership: Membership,
    @Param('connection_id', UuidPipe) connectionId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SsoConnectionTestDto> {
    const connection = await this.admin.getConnection(membership.organizationId, connectionId);
    const started = await this.signIn.startTest(connection, membership.userId);
    await this.admin.recordTest(membership.organizationId, connectionId, actor(membership, req));
    this.cookies.apply(res, started.cookies);
    res.setHeader('Cache-Control', 'no-store');
    return { authorize_url: started.location };
  }

  @Get('domains')
  @ApiOperation({
    summary: "The organization's SSO domains",
    description: 'Most recent first, each with the DNS TXT record that proves it.',
  })
  @ApiPageResponse(SsoDomainDto)
  listDomains(
    @CurrentMembership() membership: Membership,
    @Query() query: SsoListQueryDto,
  ): Promise<Page<SsoDomainDto>> {
    return this.admin.listDomains(membership.organizationId, query);
  }

  @Post('domains')
  @StepUp()
  @ApiOperation({
    summary: 'Claim an email domain',
    description:
      'Starts `pending` with the TXT record to publish (`verification`). 409 `domain_taken` when another organization ' +
      'verified it, `domain_already_added` when this one has it. Audited (`sso.domain_added`).',
  })
  @ApiCreatedResponse({ type: SsoDomainDto })
  @ApiErrors([409, 'domain_taken', 'domain_already_added'], [422, 'validation_error'])
  addDomain(
    @CurrentMembership() membership: Membership,
    @Body() dto: CreateSsoDomainDto,
    @Req() req: Request,
  ): Promise<SsoDomainDto> {
    return this.admin.addDomain(membership.organizationId, dto.domain, actor(membership, req));
  }

  @Post('domains/:domain_id/verify')
  @HttpCode(200)
  @StepUp()
  @RateLimit(SSO_VERIFY_ACCOUNT)
  @ApiParam({ name: 'domain_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Verify a domain by its DNS TXT record',
    description:
      'Looks the TXT record up (through `DNS_RESOLVER` when set, else the system resolver). 200 verified; 409 ' +
      '`domain_not_verified` when the record is missing, `domain_taken` when another organization verified the ' +
      'domain first. Audited (`sso.domain_verified`).',
  })
  @ApiOkResponse({ type: SsoDomainDto })
  @ApiErrors([404, 'not_found'], [409, 'domain_not_verified', 'domain_taken'])
  verifyDomain(
    @CurrentMembership() membership: Membership,
    @Param('domain_id', UuidPipe) domainId: string,
    @Req() req: Request,
  ): Promise<SsoDomainDto> {
    return this.admin.verifyDomain(membership.organizationId, domainId, actor(membership, req));
  }

  @Patch('domains/:domain_id')
  @StepUp()
  @ApiParam({ name: 'domain_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Enforce SSO for a domain (or stop)',
    description:
      'Only verified domains (409 `domain_not_verified`; `domain_taken` when another organization holds it). While ' +
      "enforced, the domain's addresses cannot sign in with an email code or an external provider (403 " +
      '`sso_required`), except owners of this organization. Audited (`sso.domain_enforced` / `sso.domain_unenforced`).',
  })
  @ApiOkResponse({ type: SsoDomainDto })
  @ApiErrors([404, 'not_found'], [409, 'domain_not_verified', 'domain_taken'])
  updateDomain(
    @CurrentMembership() membership: Membership,
    @Param('domain_id', UuidPipe) domainId: string,
    @Body() dto: UpdateSsoDomainDto,
    @Req() req: Request,
  ): Promise<SsoDomainDto> {
    return this.admin.setEnforced(membership.organizationId, domainId, dto.enforced, actor(membership, req));
  }

  @Delete('domains/:domain_id')
  @StepUp()
  @HttpCode(204)
  @ApiParam({ name: 'domain_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Release a domain',
    description: 'Ends its verification and enforcement. Audited (`sso.domain_deleted`).',
  })
  @ApiNoContentResponse()
  @ApiErrors([404, 'not_found'])
  async deleteDomain(
    @CurrentMembership() membership: Membership,
    @Param('domain_id', UuidPipe) domainId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.admin.deleteDomain(membership.organizationId, domainId, actor(membership, req));
  }
}
