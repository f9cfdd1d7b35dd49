import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { ChallengesService } from './challenges.service';
import {
  ChallengeDto,
  ChallengeListQueryDto,
  CreateChallengeDto,
  StandingDto,
  UpdateChallengeDto,
} from './dto/challenge.dto';

const SEES =
  'An organization-wide challenge is visible to every member; a cohort challenge to its students and teachers and ' +
  'to owners and admins; anyone else gets 404.';

@ApiTags('gamification')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@Controller('organizations/:org_id/challenges')
@OrgScoped()
export class ChallengesController {
  constructor(private readonly challenges: ChallengesService) {}

  @Get()
  @ApiOperation({
    summary: 'Challenges',
    description: `Those the caller sees, \`starts_at\` descending; \`status\` filters. ${SEES}`,
  })
  @ApiPageResponse(ChallengeDto)
  @ApiErrors(422)
  list(@CurrentMembership() member: Membership, @Query() query: ChallengeListQueryDto): Promise<Page<ChallengeDto>> {
    return this.challenges.list(member, query);
  }

  @Post()
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Create a challenge',
    description:
      'Owners and admins, for the organization or any cohort; a teacher only for a cohort they teach (`cohort_id` ' +
      'required, else 403). `course_id` only with `lessons_completed` and from the organization’s catalog (else ' +
      '422); a cohort of another organization is 404; `starts_at` >= now, `ends_at` after it and at most 90 days ' +
      'later. At most 20 upcoming or active challenges per organization (409 `challenge_limit_reached`). Audited ' +
      '(`challenge.created`).',
  })
  @ApiCreatedResponse({ type: ChallengeDto })
  @ApiErrors(403, 404, [409, 'challenge_limit_reached'], 422)
  create(
    @CurrentMembership() member: Membership,
    @Body() dto: CreateChallengeDto,
    @Client() client: ClientInfo,
  ): Promise<ChallengeDto> {
    return this.challenges.create(member, dto, client.ip);
  }

  @Get(':challenge_id')
  @ApiOperation({ summary: 'A challenge with its first 10 standings', description: SEES })
  @ApiOkResponse({ type: ChallengeDto })
  @ApiErrors(404)
  get(@CurrentMembership() member: Membership, @Param('challenge_id', UuidPipe) id: string): Promise<ChallengeDto> {
    return this.challenges.get(member, id);
  }

  @Patch(':challenge_id')
  @ApiOperation({
    summary: 'Change a challenge',
    description:
      'Its creator or an owner or admin (403 otherwise). `title` and `description_md` at any time; `metric`, ' +
      '`course_id`, `cohort_id` and `starts_at` only while upcoming (409 `challenge_started`); `ends_at` while not ' +
      'finished (409 `challenge_finished`) and only to a time after now. Audited (`challenge.updated`).',
  })
  @ApiOkResponse({ type: ChallengeDto })
  @ApiErrors(403, 404, [409, 'challenge_started', 'challenge_finished'], 422)
  update(
    @CurrentMembership() member: Membership,
    @Param('challenge_id', UuidPipe) id: string,
    @Body() dto: UpdateChallengeDto,
    @Client() client: ClientInfo,
  ): Promise<ChallengeDto> {
    return this.challenges.update(member, id, dto, client.ip);
  }

  @Delete(':challenge_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a challenge',
    description: 'Its creator or an owner or admin, only while upcoming (409 `challenge_started`). Audited.',
  })
  @ApiNoContentResponse()
  @ApiErrors(403, 404, [409, 'challenge_started'])
  async remove(
    @CurrentMembership() member: Membership,
    @Param('challenge_id', UuidPipe) id: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.challenges.remove(member, id, client.ip);
  }

  @Get(':challenge_id/standings')
  @ApiOperation({
    summary: 'Standings',
    description: `Participants ranked like the leaderboard (zero values included); frozen once finished. ${SEES}`,
  })
  @ApiPageResponse(StandingDto)
  @ApiErrors(404, 422)
  standings(
    @CurrentMembership() member: Membership,
    @Param('challenge_id', UuidPipe) id: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<StandingDto>> {
    return this.challenges.standingsPage(member, id, query.limit, query.offset);
  }

  @Post(':challenge_id/join')
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Join a challenge',
    description: `201 when joined now, 200 when already a participant; 409 \`challenge_finished\`. ${SEES}`,
  })
  @ApiCreatedResponse({ type: ChallengeDto })
  @ApiOkResponse({ type: ChallengeDto, description: 'Already a participant' })
  @ApiErrors(404, [409, 'challenge_finished'])
  async join(
    @CurrentMembership() member: Membership,
    @Param('challenge_id', UuidPipe) id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ChallengeDto> {
    const { created, challenge } = await this.challenges.join(member, id);
    res.status(created ? 201 : 200);
    return challenge;
  }

  @Post(':challenge_id/leave')
  @HttpCode(204)
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Leave a challenge',
    description: '404 when not a participant; 409 `challenge_finished`.',
  })
  @ApiNoContentResponse()
  @ApiErrors(404, [409, 'challenge_finished'])
  async leave(@CurrentMembership() member: Membership, @Param('challenge_id', UuidPipe) id: string): Promise<void> {
    await this.challenges.leave(member, id);
  }
}
