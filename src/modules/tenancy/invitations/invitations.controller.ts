import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { BrowserSessionOnly, CurrentCredential, Public } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { CookieService } from '@/core/http/cookies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  AcceptInvitationDto,
  InvitationCodeSentDto,
  InvitationCodeVerifyDto,
  InvitationPreviewDto,
  InvitationTokenDto,
  JoinedOrganizationDto,
  MyInvitationsDto,
} from './dto/invitation.dto';
import {
  ACCEPT_ACCOUNT,
  ACCEPT_IP,
  ACCEPT_TOKEN,
  CODE_REQUEST_IP,
  CODE_REQUEST_TOKEN,
  CODE_VERIFY_IP,
  CODE_VERIFY_TOKEN,
  PREVIEW_IP,
  PREVIEW_TOKEN,
} from './invitations.limits';
import { InvitationsService } from './invitations.service';

const LINK_REFUSALS =
  'Refusals, in this order: unknown or revoked 404 `not_found`; accepted 409 `invitation_already_accepted` (even ' +
  'when also past its time); pending past `expires_at` 410 `invitation_expired`; organization suspended 403 ' +
  '`organization_suspended`.';

/** What the holder of an invitation link, or the invited person once signed in, does with it. */
@ApiTags('invitations')
@Controller()
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly cookies: CookieService,
  ) {}

  @Public()
  @Post('invitations/preview')
  @HttpCode(200)
  @RateLimit(PREVIEW_IP, PREVIEW_TOKEN)
  @ApiOperation({
    summary: 'What an invitation link offers',
    description: `The organization (name, logo, color), the role, the invited address masked, whether it already has an account, and the expiry. ${LINK_REFUSALS}`,
  })
  @ApiOkResponse({ type: InvitationPreviewDto })
  @ApiErrors(
    [403, 'organization_suspended'],
    [404, 'not_found'],
    [409, 'invitation_already_accepted'],
    [410, 'invitation_expired'],
  )
  preview(@Body() dto: InvitationTokenDto): Promise<InvitationPreviewDto> {
    return this.invitations.preview(dto.token);
  }

  @Public()
  @Post('invitations/code/request')
  @HttpCode(200)
  @RateLimit(CODE_REQUEST_IP, CODE_REQUEST_TOKEN)
  @ApiOperation({
    summary: 'Email a code to the invited address',
    description:
      'A 6-digit code (10 minutes, 5 attempts; a new code voids the previous one) goes to the INVITED address, ' +
      `whether or not it has an account. ${LINK_REFUSALS}`,
  })
  @ApiOkResponse({ type: InvitationCodeSentDto })
  @ApiErrors(
    [403, 'organization_suspended'],
    [404, 'not_found'],
    [409, 'invitation_already_accepted'],
    [410, 'invitation_expired'],
  )
  async requestCode(@Body() dto: InvitationTokenDto): Promise<InvitationCodeSentDto> {
    await this.invitations.requestCode(dto.token);
    return { status: 'sent' };
  }

  @Public()
  @Post('invitations/code/verify')
  @HttpCode(200)
  @RateLimit(CODE_VERIFY_IP, CODE_VERIFY_TOKEN)
  @ApiOperation({
    summary: 'Join with the emailed code',
    description:
      "Creates the account when the invited address has none (with `name` when given, in the organization's " +
      "language), the membership with the invitation's role (someone already a member keeps theirs) and the place in " +
      "the invitation's cohort; the invitation becomes accepted and the organization the active one; sets " +
      '`access_token`, `refresh_token` and `svc_session`. On a two-factor account: 401 `two_factor_required` with ' +
      'the `svc_2fa` cookie, the invitation staying accepted; the organization becomes active after ' +
      '`POST /auth/two-factor/verify`. A wrong, expired, used or exhausted code is always 400 `invalid_otp`. ' +
      LINK_REFUSALS,
  })
  @ApiOkResponse({ type: JoinedOrganizationDto })
  @ApiErrors(
    [400, 'invalid_otp'],
    [401, 'two_factor_required'],
    [403, 'organization_suspended'],
    [404, 'not_found'],
    [409, 'invitation_already_accepted'],
    [410, 'invitation_expired'],
  )
  async verifyCode(
    @Body() dto: InvitationCodeVerifyDto,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<JoinedOrganizationDto> {
    const { joined, cookies } = await this.invitations.verifyCode(dto, client);
    this.cookies.apply(res, cookies);
    return joined;
  }

  @Post('invitations/accept')
  @BrowserSessionOnly()
  @HttpCode(200)
  @RateLimit(ACCEPT_IP, ACCEPT_ACCOUNT, ACCEPT_TOKEN)
  @ApiOperation({
    summary: 'Accept an invitation addressed to me',
    description:
      'From a browser session whose email is the invited one; send exactly one of `token` (from the link) or ' +
      '`invitation_id` (from `GET /me/invitations`). Creates the membership (someone already a member keeps ' +
      "their role) and the place in the invitation's cohort, and makes the organization the active one. An " +
      'invitation addressed to another email is 404 (its existence is never revealed); repeating an acceptance ' +
      `answers 200 again. Bearer tokens get 403 \`forbidden\`. ${LINK_REFUSALS}`,
  })
  @ApiOkResponse({ type: JoinedOrganizationDto })
  @ApiErrors(
    [403, 'forbidden', 'organization_suspended'],
    [404, 'not_found'],
    [409, 'invitation_already_accepted'],
    [410, 'invitation_expired'],
  )
  accept(
    @CurrentCredential() credential: Credential,
    @Body() dto: AcceptInvitationDto,
    @Client() client: ClientInfo,
  ): Promise<JoinedOrganizationDto> {
    return this.invitations.accept(credential, dto, client.ip);
  }

  @Get('me/invitations')
  @ApiOperation({
    summary: 'Invitations addressed to me',
    description:
      "Pending, unexpired invitations to the account's email, newest first (organizations that are suspended are " +
      'left out). Accept one with `POST /invitations/accept` and its `invitation_id`.',
  })
  @ApiOkResponse({ type: MyInvitationsDto })
  mine(@CurrentCredential() credential: Credential): Promise<MyInvitationsDto> {
    return this.invitations.mine(credential.userId);
  }
}
