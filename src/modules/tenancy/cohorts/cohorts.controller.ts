import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentCredential } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { CohortsService } from './cohorts.service';
import {
  AddCohortMemberDto,
  CohortDto,
  CohortListQueryDto,
  CohortMemberDto,
  CreateCohortDto,
  UpdateCohortDto,
} from './dto/cohort.dto';

@ApiTags('cohorts')
@Controller('organizations/:org_id/cohorts')
@OrgScoped()
export class CohortsController {
  constructor(private readonly cohorts: CohortsService) {}

  @Get()
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Cohorts of the organization',
    description:
      'Owner/admin see every cohort; a teacher sees only the cohorts they teach; a student gets 403. Most recent ' +
      'first. `institute_id` keeps the cohorts of one institute, `q` those whose name contains it (case-insensitive).',
  })
  @ApiPageResponse(CohortDto)
  @ApiErrors(422)
  list(@CurrentMembership() membership: Membership, @Query() query: CohortListQueryDto): Promise<Page<CohortDto>> {
    return this.cohorts.list(membership, query);
  }

  @Post()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'Create a cohort',
    description:
      '`institute_id` must be an institute linked to this organization (its legacy institute, the institute of one ' +
      'of its cohorts, or one it created), else 422 on `institute_id`. `ends_on` must not be before `starts_on`. ' +
      'Audited (`cohort.created`).',
  })
  @ApiCreatedResponse({ type: CohortDto })
  @ApiErrors(422)
  create(
    @Param('org_id') orgId: string,
    @Body() dto: CreateCohortDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<CohortDto> {
    return this.cohorts.create(orgId.toLowerCase(), dto, credential.userId, req.ip);
  }

  @Get(':cohort_id')
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'A cohort',
    description: 'With its member count and teachers. A cohort of another organization is 404.',
  })
  @ApiOkResponse({ type: CohortDto })
  @ApiErrors(404)
  get(@Param('org_id') orgId: string, @Param('cohort_id', UuidPipe) cohortId: string): Promise<CohortDto> {
    return this.cohorts.get(orgId.toLowerCase(), cohortId.toLowerCase());
  }

  @Patch(':cohort_id')
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'Update a cohort',
    description:
      'Only the fields present are applied; null clears `institute_id`, `starts_on` and `ends_on`. The same rules as ' +
      'on creation apply to the resulting cohort. Audited (`cohort.updated`, with the names of the changed fields).',
  })
  @ApiOkResponse({ type: CohortDto })
  @ApiErrors(404, 422)
  update(
    @Param('org_id') orgId: string,
    @Param('cohort_id', UuidPipe) cohortId: string,
    @Body() dto: UpdateCohortDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<CohortDto> {
    return this.cohorts.update(orgId.toLowerCase(), cohortId.toLowerCase(), dto, credential.userId, req.ip);
  }

  @Delete(':cohort_id')
  @Roles('owner', 'admin')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a cohort',
    description:
      'Its memberships go with it; the people stay members of the organization. Invitations that named it keep ' +
      'working without a cohort. Audited (`cohort.deleted`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(
    @Param('org_id') orgId: string,
    @Param('cohort_id', UuidPipe) cohortId: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.cohorts.remove(orgId.toLowerCase(), cohortId.toLowerCase(), credential.userId, req.ip);
  }

  @Post(':cohort_id/members')
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'Add a person to a cohort',
    description:
      'The person must be a member of the organization (else 422 `validation_error` on `user_id`). 201 when added; ' +
      '200 with the same body when they are already in the cohort (with the role given: a different role replaces ' +
      'theirs). Audited (`cohort.member_added`, with the role).',
  })
  @ApiCreatedResponse({ type: CohortMemberDto, description: 'Added' })
  @ApiOkResponse({ type: CohortMemberDto, description: 'Already in the cohort' })
  @ApiErrors(404, 422)
  async addMember(
    @Param('org_id') orgId: string,
    @Param('cohort_id', UuidPipe) cohortId: string,
    @Body() dto: AddCohortMemberDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CohortMemberDto> {
    const { member, created } = await this.cohorts.putMember(
      orgId.toLowerCase(),
      cohortId.toLowerCase(),
      dto,
      credential.userId,
      req.ip,
    );
    res.status(created ? 201 : 200);
    return member;
  }

  @Delete(':cohort_id/members/:user_id')
  @Roles('owner', 'admin')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a person from a cohort',
    description:
      'They stay a member of the organization. 404 when they are not in the cohort. Audited (`cohort.member_removed`).',
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(404)
  async removeMember(
    @Param('org_id') orgId: string,
    @Param('cohort_id', UuidPipe) cohortId: string,
    @Param('user_id', UuidPipe) userId: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.cohorts.removeMember(
      orgId.toLowerCase(),
      cohortId.toLowerCase(),
      userId.toLowerCase(),
      credential.userId,
      req.ip,
    );
  }
}
