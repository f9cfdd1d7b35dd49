import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, UseGuards } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential, PlatformRoles, StepUp } from '@/core/auth/access.decorators';
import { type Credential, hasPlatformRole } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import { ApiError } from '@/core/http/api-error';
import {
  CreateLtiToolDto,
  LtiKidDto,
  LtiRegistrationDto,
  StartLtiRegistrationDto,
  LtiToolDto,
  LtiToolListDto,
  UpdateLtiToolDto,
} from './dto/lti.dto';
import { LtiEnabledGuard } from './lti-enabled.guard';
import { LtiKeysService } from './lti-keys.service';
import { LtiToolsService } from './lti-tools.service';
import { LtiRegistrationsService } from './lti-registrations.service';

/** The platform's LTI tool registry and signing keys (platform admins; editors list tools to pick one). */
@ApiTags('lti')
@UseGuards(LtiEnabledGuard)
@Controller('admin/lti')
export class LtiAdminController {
  constructor(
    private readonly tools: LtiToolsService,
    private readonly keys: LtiKeysService,
    private readonly registrations: LtiRegistrationsService,
  ) {}

  @Post('registrations')
  @PlatformRoles('platform_admin')
  @StepUp()
  @ApiOperation({
    summary: 'Start a dynamic registration (LTI Dynamic Registration 1.0)',
    description:
      "The web app opens `launch_url` (the tool's registration URL with `openid_configuration` and " +
      '`registration_token`) in a window; the token is single use and lasts 1 hour. The tool then registers itself ' +
      '(`registered_by: dynamic`, audited `lti_tool.registered`).',
  })
  @ApiCreatedResponse({ type: LtiRegistrationDto })
  @ApiErrors(422, [404, 'feature_disabled'])
  startRegistration(
    @CurrentCredential() credential: Credential,
    @Body() dto: StartLtiRegistrationDto,
    @Req() req: Request,
  ): Promise<LtiRegistrationDto> {
    return this.registrations.start(dto.initiation_url, { userId: credential.userId, ip: req.ip });
  }

  @Get('tools')
  @PlatformRoles('editor')
  @ApiOperation({
    summary: 'The registered LTI tools',
    description: 'Platform admins get full tools; editors get `{id, name, enabled}` to pick a tool for a lesson.',
  })
  @ApiOkResponse({ type: LtiToolListDto })
  @ApiErrors([404, 'feature_disabled'])
  list(@CurrentCredential() credential: Credential): Promise<LtiToolListDto> {
    return this.tools.list(hasPlatformRole(credential, 'platform_admin'));
  }

  @Post('tools')
  @PlatformRoles('platform_admin')
  @StepUp()
  @ApiOperation({
    summary: 'Register an LTI tool (manual registration)',
    description:
      'The answer’s `platform` block is what the tool’s administrator copies into the tool. At most 100 tools ' +
      '(409 `lti_tool_limit_reached`). Audited (`lti_tool.created`).',
  })
  @ApiCreatedResponse({ type: LtiToolDto })
  @ApiErrors(422, [404, 'feature_disabled'], [409, 'lti_tool_limit_reached'])
  create(
    @CurrentCredential() credential: Credential,
    @Body() dto: CreateLtiToolDto,
    @Req() req: Request,
  ): Promise<LtiToolDto> {
    return this.tools.create(dto, { userId: credential.userId, ip: req.ip });
  }

  @Get('tools/:tool_id')
  @PlatformRoles('platform_admin')
  @ApiOperation({ summary: 'An LTI tool' })
  @ApiParam({ name: 'tool_id', format: 'uuid' })
  @ApiOkResponse({ type: LtiToolDto })
  @ApiErrors(404)
  get(@Param('tool_id', UuidPipe) toolId: string): Promise<LtiToolDto> {
    return this.tools.get(toolId);
  }

  @Patch('tools/:tool_id')
  @PlatformRoles('platform_admin')
  @StepUp()
  @ApiOperation({
    summary: 'Change an LTI tool',
    description: 'Any field of the registration, and `enabled`. Audited (`lti_tool.updated`).',
  })
  @ApiParam({ name: 'tool_id', format: 'uuid' })
  @ApiOkResponse({ type: LtiToolDto })
  @ApiErrors(404, 422)
  update(
    @CurrentCredential() credential: Credential,
    @Param('tool_id', UuidPipe) toolId: string,
    @Body() dto: UpdateLtiToolDto,
    @Req() req: Request,
  ): Promise<LtiToolDto> {
    return this.tools.update(toolId, dto, { userId: credential.userId, ip: req.ip });
  }

  @Delete('tools/:tool_id')
  @HttpCode(204)
  @PlatformRoles('platform_admin')
  @StepUp()
  @ApiOperation({
    summary: 'Delete an LTI tool',
    description:
      'Its lessons stop launching (409 `lti_tool_unavailable`); line items and results are kept. Audited (`lti_tool.deleted`).',
  })
  @ApiParam({ name: 'tool_id', format: 'uuid' })
  @ApiNoContentResponse()
  @ApiErrors(404)
  async remove(
    @CurrentCredential() credential: Credential,
    @Param('tool_id', UuidPipe) toolId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.tools.remove(toolId, { userId: credential.userId, ip: req.ip });
  }

  @Post('keys/rotate')
  @HttpCode(200)
  @PlatformRoles('platform_admin')
  @StepUp()
  @ApiOperation({
    summary: "Rotate the platform's LTI signing key",
    description:
      'The new key signs from now on; the previous public key stays in the JWKS for 7 days. Audited (`lti_key.rotated`).',
  })
  @ApiOkResponse({ type: LtiKidDto })
  @ApiErrors([404, 'feature_disabled'])
  rotate(@CurrentCredential() credential: Credential, @Req() req: Request): Promise<LtiKidDto> {
    if (!credential.userId) throw ApiError.unauthorized();
    return this.keys.rotate(credential.userId, req.ip);
  }
}
