import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { MemberDto, MemberListQueryDto, UpdateMemberDto } from './dto/member.dto';
import { MembersService } from './members.service';

@ApiTags('members')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@Controller('organizations/:org_id/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @OrgScoped()
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Members of the organization',
    description:
      'Owners and admins see every member; a teacher sees only the students of the cohorts they teach. Newest ' +
      'members first (ties by user id). `q` matches part of the name or email, case-insensitive; a `cohort_id` ' +
      'of another organization is 404.',
  })
  @ApiPageResponse(MemberDto)
  @ApiErrors([404, 'not_found'])
  list(@CurrentMembership() membership: Membership, @Query() query: MemberListQueryDto): Promise<Page<MemberDto>> {
    return this.members.list(membership, query);
  }

  @Patch(':user_id')
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: "Change a member's role",
    description:
      'Only an owner grants or removes `owner` and `admin` (an admin changing an owner or admin, or making ' +
      'someone one, is 403). The organization always keeps an owner: 409 `last_owner`. Audited ' +
      '(`member.role_changed`, with `from` and `to`).',
  })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors([403, 'forbidden'], [404, 'not_found'], [409, 'last_owner'])
  changeRole(
    @CurrentMembership() membership: Membership,
    @Param('user_id', UuidPipe) userId: string,
    @Body() dto: UpdateMemberDto,
    @Req() req: Request,
  ): Promise<MemberDto> {
    return this.members.changeRole(membership, userId.toLowerCase(), dto.role, req.ip);
  }

  @Delete(':user_id')
  @OrgScoped()
  // Every member may call it to leave; who may remove someone else is decided by the service.
  @Roles('owner', 'admin', 'teacher', 'student')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a member, or leave',
    description:
      'Any member may remove themself. Owners remove anyone; admins remove teachers and students (owners and ' +
      'admins: 403); others 403. The organization always keeps an owner: 409 `last_owner`. The person loses ' +
      'their cohort places, and the organization stops being their active one. Audited (`member.removed`).',
  })
  @ApiNoContentResponse()
  @ApiErrors([403, 'forbidden'], [404, 'not_found'], [409, 'last_owner'])
  async remove(
    @CurrentMembership() membership: Membership,
    @Param('user_id', UuidPipe) userId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.members.remove(membership, userId.toLowerCase(), req.ip);
  }
}
