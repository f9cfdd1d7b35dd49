import { Body, Controller, Get, Patch, Put, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import {
  CompleteOnboardingDto,
  IntegrationListDto,
  OnboardingStatusDto,
  UpdateFirstStepsDto,
} from './dto/onboarding.dto';
import { UpdateProfileDto } from './dto/profile.dto';
import { UserDto } from './dto/user.dto';
import { IntegrationsService } from './integrations.service';
import { UsersService } from './users.service';

@ApiTags('users')
@Controller('me')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly integrations: IntegrationsService,
  ) {}

  @Patch('profile')
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Update the own profile',
    description:
      'Only the fields present are applied. `null` clears headline, bio, location and avatar_url; name, locale, ' +
      'time_zone and public_profile cannot be null. Email and password cannot be changed here. A minor cannot make ' +
      'their profile public (`public_profile: true` is 403 `minor_restricted`).',
  })
  @ApiOkResponse({ type: UserDto })
  @ApiErrors([403, 'minor_restricted'])
  async updateProfile(@CurrentCredential() credential: Credential, @Body() dto: UpdateProfileDto): Promise<UserDto> {
    return this.users.toDto(await this.users.updateProfile(credential.userId, dto));
  }

  @Get('onboarding')
  @ApiOperation({ summary: 'Onboarding status and the dashboard first steps' })
  @ApiOkResponse({ type: OnboardingStatusDto })
  async onboarding(@CurrentCredential() credential: Credential): Promise<OnboardingStatusDto> {
    return this.users.onboardingStatus(await this.users.getById(credential.userId));
  }

  @Put('onboarding')
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Complete onboarding',
    description:
      'Sets name and locale and records the consent `adult_declaration` with the current terms version. ' +
      'Without `adult_confirmed: true` the answer is 422 `adult_declaration_required`. The declaration sets the age ' +
      'bracket to `adult` unless an organization manages it; a bracket managed as `under_18` is 409 ' +
      '`age_bracket_managed` (extensions-v2 17.5).',
  })
  @ApiOkResponse({ type: OnboardingStatusDto })
  @ApiErrors([422, 'validation_error', 'adult_declaration_required'], [409, 'age_bracket_managed'])
  completeOnboarding(
    @CurrentCredential() credential: Credential,
    @Body() dto: CompleteOnboardingDto,
    @Req() req: Request,
  ): Promise<OnboardingStatusDto> {
    return this.users.completeOnboarding(credential.userId, dto, req.ip ?? null);
  }

  @Put('onboarding/first-steps')
  @ApiOperation({ summary: 'Mark first steps done or pending, hide or show the list (idempotent)' })
  @ApiOkResponse({ type: OnboardingStatusDto })
  updateFirstSteps(
    @CurrentCredential() credential: Credential,
    @Body() dto: UpdateFirstStepsDto,
  ): Promise<OnboardingStatusDto> {
    return this.users.updateFirstSteps(credential.userId, dto);
  }

  @Get('integrations')
  @ApiOperation({ summary: 'The own integrations (connected applications); empty when none' })
  @ApiOkResponse({ type: IntegrationListDto })
  async listIntegrations(@CurrentCredential() credential: Credential): Promise<IntegrationListDto> {
    return { items: await this.integrations.list(credential.userId) };
  }
}
