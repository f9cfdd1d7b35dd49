import { Body, Controller, Get, Param, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { BrowserSessionOnly, CurrentCredential, PlatformRoles, StepUp } from '@/core/auth/access.decorators';
import { type Credential, browserSessionId } from '@/core/auth/credential';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import { DeepLinkingQueryDto, LtiDeploymentDto, LtiDeploymentListDto, UpdateLtiDeploymentDto } from './dto/lti.dto';
import { LtiEnabledGuard } from './lti-enabled.guard';
import { sendRedirect } from './lti-html';
import { LtiLaunchService } from './lti-launch.service';
import { LtiToolsService } from './lti-tools.service';

/** An organization's deployments of the platform's tools (owners and admins). */
@ApiTags('lti')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@UseGuards(LtiEnabledGuard)
@OrgScoped()
@Roles('owner', 'admin')
@Controller('organizations/:org_id/lti/deployments')
export class LtiDeploymentsController {
  constructor(private readonly tools: LtiToolsService) {}

  @Get()
  @ApiOperation({
    summary: "The organization's LTI deployments",
    description:
      'Every tool used by a lesson of a course the organization sees; a deployment is created at first need.',
  })
  @ApiOkResponse({ type: LtiDeploymentListDto })
  @ApiErrors([404, 'feature_disabled'])
  list(@CurrentMembership() membership: Membership): Promise<LtiDeploymentListDto> {
    return this.tools.deployments(membership.organizationId);
  }

  @Put(':tool_id')
  @StepUp()
  @ApiOperation({
    summary: "Change the organization's deployment of a tool",
    description:
      '`enabled` and the privacy settings (`send_name`, `send_email`; never a minor’s email). 404 for a tool no ' +
      'course of the organization uses. Audited (`lti_deployment.updated`).',
  })
  @ApiParam({ name: 'tool_id', format: 'uuid' })
  @ApiOkResponse({ type: LtiDeploymentDto })
  @ApiErrors(404, 422)
  update(
    @CurrentMembership() membership: Membership,
    @Param('tool_id', UuidPipe) toolId: string,
    @Body() dto: UpdateLtiDeploymentDto,
    @Req() req: Request,
  ): Promise<LtiDeploymentDto> {
    return this.tools.updateDeployment(membership.organizationId, toolId, dto, {
      userId: membership.userId,
      ip: req.ip,
    });
  }
}

/** Starting a launch of a lesson's tool (a learner, or the organization's staff). */
@ApiTags('lti')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@UseGuards(LtiEnabledGuard)
@OrgScoped()
@Controller('organizations/:org_id/courses/:course_id/lessons/:lesson_id/lti')
export class LtiLaunchController {
  constructor(private readonly launch: LtiLaunchService) {}

  @Get('launch')
  @ApiOperation({
    summary: "Launch the lesson's LTI tool",
    description:
      "302 to the tool's login initiation URL (`iss`, `login_hint`, `lti_message_hint`, `target_link_uri`, " +
      '`client_id`, `lti_deployment_id`). An enrolled learner, or the organization’s owners, admins and teachers. ' +
      '409 `lti_tool_unavailable` when the tool or the deployment is disabled. A browser session only (a token of ' +
      'the organization: 403 `forbidden`), since the tool’s authentication request must come back in it. A minor ' +
      'without guardian consent: 403 `guardian_consent_required`.',
  })
  @ApiParam({ name: 'course_id', format: 'uuid' })
  @ApiParam({ name: 'lesson_id', format: 'uuid' })
  @ApiFoundResponse({ description: "Redirect to the tool's login initiation" })
  @ApiErrors(404, [403, 'not_enrolled', 'forbidden', 'guardian_consent_required'], [409, 'lti_tool_unavailable'])
  async start(
    @CurrentMembership() membership: Membership,
    @CurrentCredential() credential: Credential,
    @Param('course_id', UuidPipe) courseId: string,
    @Param('lesson_id', UuidPipe) lessonId: string,
    @Res() res: Response,
  ): Promise<void> {
    if (credential.kind !== 'session' || !credential.sessionId) {
      throw ApiError.forbidden('Launch from the web app (a browser session).');
    }
    sendRedirect(res, 302, await this.launch.launchUrl(membership, credential.sessionId, courseId, lessonId));
  }
}

/** An editor choosing a tool's content for a course (Deep Linking 2.0). */
@ApiTags('lti')
@UseGuards(LtiEnabledGuard)
@PlatformRoles('editor')
@BrowserSessionOnly()
@Controller('editor/courses/:course_id/lti')
export class LtiDeepLinkingStartController {
  constructor(private readonly launch: LtiLaunchService) {}

  @Get('deep-linking')
  @ApiOperation({
    summary: "Open a tool's content picker (Deep Linking)",
    description: "302 to the tool's login initiation for an `LtiDeepLinkingRequest`; the items chosen become lessons.",
  })
  @ApiParam({ name: 'course_id', format: 'uuid' })
  @ApiFoundResponse({ description: "Redirect to the tool's login initiation" })
  @ApiErrors(404, [409, 'lti_tool_unavailable'])
  async start(
    @CurrentCredential() credential: Credential,
    @Param('course_id', UuidPipe) courseId: string,
    @Query() query: DeepLinkingQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    res.redirect(
      302,
      await this.launch.deepLinkingUrl(
        credential.userId,
        browserSessionId(credential),
        courseId,
        query.tool_id.toLowerCase(),
      ),
    );
  }
}
