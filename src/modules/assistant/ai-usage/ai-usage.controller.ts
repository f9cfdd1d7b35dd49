import { Body, Controller, Get, Param, Put, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { AiUsageService } from './ai-usage.service';
import {
  AiSettingsDto,
  MyAiUsageDto,
  OrganizationAiUsageDto,
  OrganizationUsageQueryDto,
  PlatformAiUsageDto,
  PlatformUsageQueryDto,
  UpdateAiSettingsDto,
  UsagePeriodQueryDto,
} from './dto/ai-usage.dto';

const METERING =
  'Every provider call is one metered request (tutor answers, declines with 0 tokens, failed remote calls, quiz ' +
  'proposals); tokens are input plus output. Periods are whole UTC dates, both inclusive, at most 366 days (else 422).';

@ApiTags('ai-usage')
@Controller()
export class AiUsageController {
  constructor(private readonly usage: AiUsageService) {}

  @Get('me/ai-usage')
  @ApiOperation({
    summary: 'My AI usage',
    description:
      `${METERING} Totals, every date of the period and each organization (quiz proposals an editor asked for ` +
      'count under organization null). A bearer token counts its organization only. `today` is the UTC day in the ' +
      "token's organization, else the active one, with its `per_member_daily_tokens`.",
  })
  @ApiOkResponse({ type: MyAiUsageDto })
  @ApiErrors(422)
  mine(@CurrentCredential() credential: Credential, @Query() query: UsagePeriodQueryDto): Promise<MyAiUsageDto> {
    return this.usage.mine(credential, query);
  }

  @Get('organizations/:org_id/ai-usage')
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: "The organization's AI usage",
    description:
      `${METERING} Grouped by day, member (labelled with the member's name; people erased since are one group with ` +
      'key null) or feature, with the quota of the current UTC month. Conversations themselves stay private.',
  })
  @ApiOkResponse({ type: OrganizationAiUsageDto })
  @ApiErrors(422)
  organization(
    @Param('org_id') orgId: string,
    @Query() query: OrganizationUsageQueryDto,
  ): Promise<OrganizationAiUsageDto> {
    return this.usage.organizationUsage(orgId, query);
  }

  @Get('organizations/:org_id/ai-settings')
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: "The organization's AI settings",
    description:
      'The tutor switch, whether minors may use it, the daily token limit per member, and (read-only) the monthly ' +
      'limits of the plan and the provider of the deployment.',
  })
  @ApiOkResponse({ type: AiSettingsDto })
  settings(@Param('org_id') orgId: string): Promise<AiSettingsDto> {
    return this.usage.settings(orgId);
  }

  @Put('organizations/:org_id/ai-settings')
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: "Change the organization's AI settings",
    description:
      'Keys left out keep their value; `per_member_daily_tokens: null` removes the daily limit. Audited ' +
      '(`ai_settings.updated`, with the fields changed and their values before and after) when something changes.',
  })
  @ApiOkResponse({ type: AiSettingsDto })
  @ApiErrors(422)
  update(
    @Param('org_id') orgId: string,
    @Body() dto: UpdateAiSettingsDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<AiSettingsDto> {
    return this.usage.updateSettings(orgId, dto, credential.userId, req.ip);
  }

  @Get('admin/ai-usage')
  @PlatformRoles('platform_admin')
  @ApiOperation({
    summary: 'AI usage of the platform (platform admin)',
    description: `${METERING} Grouped by organization (platform work under key null), day, feature or provider.`,
  })
  @ApiOkResponse({ type: PlatformAiUsageDto })
  @ApiErrors(422)
  platform(@Query() query: PlatformUsageQueryDto): Promise<PlatformAiUsageDto> {
    return this.usage.platformUsage(query);
  }
}
