import { Body, Controller, Get, HttpCode, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { BrowserSessionOnly, CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import { ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import {
  ActiveOrganizationDto,
  AdminOrganizationDto,
  AdminOrganizationListQueryDto,
  ChangePlanDto,
  CreateOrganizationDto,
  MyOrganizationsDto,
  OrganizationDto,
  OrganizationWithRoleDto,
  SuspendDto,
  UpdateOrganizationDto,
  UsageDto,
} from './dto/organization.dto';
import { OrganizationsService } from './organizations.service';

@ApiTags('organizations')
@Controller()
export class OrganizationsController {
  constructor(private readonly orgs: OrganizationsService) {}

  @Post('organizations')
  @BrowserSessionOnly()
  @ApiOperation({
    summary: 'Create an organization',
    description: 'The caller becomes its owner and it becomes their active organization.',
  })
  @ApiCreatedResponse({ type: OrganizationWithRoleDto })
  @ApiErrors([409, 'slug_taken'], [403, 'forbidden'])
  create(
    @CurrentCredential() credential: Credential,
    @Body() dto: CreateOrganizationDto,
    @Req() req: Request,
  ): Promise<OrganizationWithRoleDto> {
    return this.orgs.create(credential, dto, req.ip);
  }

  @Get('organizations/:org_id')
  @OrgScoped()
  @ApiOperation({ summary: 'An organization the caller belongs to' })
  @ApiOkResponse({ type: OrganizationDto })
  async get(@Param('org_id') orgId: string): Promise<OrganizationDto> {
    return this.orgs.toDto(await this.orgs.getById(orgId));
  }

  @Patch('organizations/:org_id')
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'Update the organization and its certificate template',
    description:
      'Only the fields present are applied; null clears the nullable ones. Audited (`organization.updated`).',
  })
  @ApiOkResponse({ type: OrganizationDto })
  update(
    @Param('org_id') orgId: string,
    @Body() dto: UpdateOrganizationDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<OrganizationDto> {
    return this.orgs.update(orgId, dto, credential.userId, req.ip);
  }

  @Get('organizations/:org_id/usage')
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({ summary: 'Plan usage: members, enrollments and AI against the plan limits' })
  @ApiOkResponse({ type: UsageDto })
  usage(@Param('org_id') orgId: string): Promise<UsageDto> {
    return this.orgs.usage(orgId);
  }

  @Get('me/organizations')
  @ApiOperation({ summary: 'My organizations with my role in each, and the active one' })
  @ApiOkResponse({ type: MyOrganizationsDto })
  mine(@CurrentCredential() credential: Credential): Promise<MyOrganizationsDto> {
    return this.orgs.myOrganizations(credential.userId);
  }

  @Put('me/active-organization')
  @ApiOperation({
    summary: 'Choose the active organization',
    description: '404 when not a member; 403 `organization_suspended` when suspended.',
  })
  @ApiOkResponse({ type: MyOrganizationsDto })
  @ApiErrors(404, [403, 'organization_suspended'])
  setActive(
    @CurrentCredential() credential: Credential,
    @Body() dto: ActiveOrganizationDto,
  ): Promise<MyOrganizationsDto> {
    return this.orgs.setActive(credential.userId, dto.organization_id.toLowerCase());
  }

  @Get('admin/organizations')
  @PlatformRoles('platform_admin')
  @ApiOperation({
    summary: 'Every organization (platform admin)',
    description: '`q` matches part of the name or slug; most recent first, each with `members_count`.',
  })
  @ApiPageResponse(AdminOrganizationDto)
  @ApiErrors(422)
  adminList(@Query() query: AdminOrganizationListQueryDto): Promise<Page<AdminOrganizationDto>> {
    return this.orgs.adminList(query);
  }

  @Put('admin/organizations/:org_id/plan')
  @PlatformRoles('platform_admin')
  @ApiOperation({
    summary: 'Change the plan and its limits (platform admin)',
    description:
      'Every field is required; a limit null is unlimited. A limit below the current count refuses only new joins ' +
      '(`member_limit_reached`) and new AI calls. Audited (`organization.plan_changed`, old and new values).',
  })
  @ApiOkResponse({ type: OrganizationDto })
  @ApiErrors(404, 422)
  changePlan(
    @Param('org_id', UuidPipe) orgId: string,
    @Body() dto: ChangePlanDto,
    @CurrentCredential() c: Credential,
    @Req() req: Request,
  ): Promise<OrganizationDto> {
    return this.orgs.changePlan(orgId.toLowerCase(), dto, c.userId, req.ip);
  }

  @Post('admin/organizations/:org_id/suspend')
  @HttpCode(200)
  @PlatformRoles('platform_admin')
  @ApiOperation({
    summary: 'Suspend an organization (platform admin)',
    description: 'Every scoped path then answers 403 `organization_suspended`. Audited.',
  })
  @ApiOkResponse({ type: OrganizationDto })
  @ApiErrors(404)
  suspend(
    @Param('org_id', UuidPipe) orgId: string,
    @Body() dto: SuspendDto,
    @CurrentCredential() c: Credential,
    @Req() req: Request,
  ): Promise<OrganizationDto> {
    return this.orgs.setSuspended(orgId, true, dto.reason, c.userId, req.ip);
  }

  @Post('admin/organizations/:org_id/unsuspend')
  @HttpCode(200)
  @PlatformRoles('platform_admin')
  @ApiOperation({ summary: 'Lift a suspension (platform admin)', description: 'Audited.' })
  @ApiOkResponse({ type: OrganizationDto })
  @ApiErrors(404)
  unsuspend(
    @Param('org_id', UuidPipe) orgId: string,
    @Body() dto: SuspendDto,
    @CurrentCredential() c: Credential,
    @Req() req: Request,
  ): Promise<OrganizationDto> {
    return this.orgs.setSuspended(orgId, false, dto.reason, c.userId, req.ip);
  }
}
