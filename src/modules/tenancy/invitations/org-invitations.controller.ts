import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { UuidPipe } from '@/core/http/uuid';
import {
  CreateInvitationDto,
  InvitationDto,
  InvitationListItemDto,
  InvitationListQueryDto,
} from './dto/invitation.dto';
import { INVITE_ACCOUNT, INVITE_ORGANIZATION, REVOKE_ACCOUNT } from './invitations.limits';
import { InvitationsService } from './invitations.service';

/** An organization's owners and admins sending, listing and revoking its invitations. */
@ApiTags('invitations')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@Controller('organizations/:org_id')
export class OrgInvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('members/invite')
  @OrgScoped()
  @Roles('owner', 'admin')
  @RateLimit(INVITE_ACCOUNT, INVITE_ORGANIZATION)
  @ApiOperation({
    summary: 'Invite a person by email',
    description:
      "Sends an email (in the person's language when the address has an account, else the organization's) with " +
      'the link `{web_url}/invitations/{token}`, valid 7 days. A pending invitation to the same address in this ' +
      'organization is replaced: its link stops working. Only an owner invites owners and admins. Audited ' +
      '(`invitation.sent`). Many people at once: use the CSV import.',
  })
  @ApiCreatedResponse({ type: InvitationDto })
  @ApiErrors([403, 'forbidden'], [409, 'already_member'], [422, 'validation_error'])
  invite(
    @CurrentMembership() membership: Membership,
    @Body() dto: CreateInvitationDto,
    @Req() req: Request,
  ): Promise<InvitationDto> {
    return this.invitations.invite(
      membership.organizationId,
      { email: dto.email, role: dto.role ?? 'student', cohortId: dto.cohort_id ?? null },
      { userId: membership.userId, ip: req.ip },
    );
  }

  @Get('invitations')
  @OrgScoped()
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: "The organization's invitations",
    description: 'Most recent first. `expired` is a pending invitation past its `expires_at`.',
  })
  @ApiPageResponse(InvitationListItemDto)
  list(
    @CurrentMembership() membership: Membership,
    @Query() query: InvitationListQueryDto,
  ): Promise<Page<InvitationListItemDto>> {
    return this.invitations.list(membership.organizationId, query);
  }

  @Delete('invitations/:invitation_id')
  @OrgScoped()
  @Roles('owner', 'admin')
  @HttpCode(204)
  @RateLimit(REVOKE_ACCOUNT)
  @ApiOperation({
    summary: 'Revoke an invitation',
    description:
      'A pending (or expired) invitation; from then on its link answers 404 everywhere. Audited ' +
      '(`invitation.revoked`).',
  })
  @ApiNoContentResponse()
  @ApiErrors([404, 'not_found'], [409, 'invitation_already_accepted'])
  async revoke(
    @CurrentMembership() membership: Membership,
    @Param('invitation_id', UuidPipe) invitationId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.invitations.revoke(membership.organizationId, invitationId.toLowerCase(), membership.userId, req.ip);
  }
}
