import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, MinorAccess, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  AdminTicketDto,
  AdminTicketListQueryDto,
  AdminTicketWithMessagesDto,
  CreateMessageDto,
  CreateStaffMessageDto,
  CreateTicketDto,
  TicketDto,
  TicketListQueryDto,
  TicketMessageDto,
  TicketWithMessagesDto,
  UpdateTicketDto,
} from './dto/support.dto';
import { CREATE_ACCOUNT, MESSAGE_ACCOUNT } from './support.limits';
import { SupportService } from './support.service';

const STATES =
  'States: `open` -> `waiting_on_user` (a staff reply) -> `open` (the person replies) -> ... -> `closed` (by either ' +
  'side, or automatically 14 days after a staff reply left unanswered). Messages are markdown; `body_html` is it ' +
  'rendered and sanitized.';
const OWN =
  'Only the ticket’s owner; anyone else 404. A bearer token sees its organization’s tickets and those without one.';

@ApiTags('support')
@Controller('support/tickets')
export class SupportController {
  constructor(private readonly support: SupportService) {}

  @Post()
  @MinorAccess('always')
  @RateLimit(CREATE_ACCOUNT)
  @ApiOperation({
    summary: 'Write to support',
    description:
      `Opens a ticket with its first message. \`organization_id\`: an organization of the caller (else 404). ${STATES} ` +
      'Sends `support.ticket_received` to the person and, when `SUPPORT_INBOX` is set, `support.new_ticket` there.',
  })
  @ApiCreatedResponse({ type: TicketWithMessagesDto })
  @ApiErrors(404, 422)
  create(@CurrentCredential() credential: Credential, @Body() dto: CreateTicketDto): Promise<TicketWithMessagesDto> {
    return this.support.create(credential, dto);
  }

  @Get()
  @ApiOperation({ summary: 'My support tickets', description: `Most recently updated first. ${STATES}` })
  @ApiPageResponse(TicketDto)
  @ApiErrors(422)
  list(@CurrentCredential() credential: Credential, @Query() query: TicketListQueryDto): Promise<Page<TicketDto>> {
    return this.support.list(credential, query);
  }

  @Get(':ticket_id')
  @ApiOperation({ summary: 'A ticket with its messages', description: `${OWN} Internal notes are never shown.` })
  @ApiOkResponse({ type: TicketWithMessagesDto })
  @ApiErrors(404)
  get(
    @CurrentCredential() credential: Credential,
    @Param('ticket_id', UuidPipe) id: string,
  ): Promise<TicketWithMessagesDto> {
    return this.support.get(credential, id);
  }

  @Post(':ticket_id/messages')
  @MinorAccess('always')
  @RateLimit(MESSAGE_ACCOUNT)
  @ApiOperation({
    summary: 'Reply on a ticket',
    description:
      `${OWN} The ticket becomes \`open\`; a ticket closed less than 30 days ago reopens, later it is 409 ` +
      '`ticket_closed`.',
  })
  @ApiCreatedResponse({ type: TicketMessageDto })
  @ApiErrors(404, 409, 422)
  reply(
    @CurrentCredential() credential: Credential,
    @Param('ticket_id', UuidPipe) id: string,
    @Body() dto: CreateMessageDto,
  ): Promise<TicketMessageDto> {
    return this.support.reply(credential, id, dto);
  }

  @Post(':ticket_id/close')
  @HttpCode(200)
  @MinorAccess('always')
  @ApiOperation({ summary: 'Close a ticket', description: `${OWN} Idempotent.` })
  @ApiOkResponse({ type: TicketDto })
  @ApiErrors(404)
  close(@CurrentCredential() credential: Credential, @Param('ticket_id', UuidPipe) id: string): Promise<TicketDto> {
    return this.support.close(credential, id);
  }
}

@ApiTags('support')
@Controller('admin/support/tickets')
@PlatformRoles('platform_admin')
export class AdminSupportController {
  constructor(private readonly support: SupportService) {}

  @Get()
  @ApiOperation({
    summary: 'The support desk (platform admin)',
    description: `Every ticket with its requester, most recently updated first; \`q\` matches words of the subject or the number. ${STATES}`,
  })
  @ApiPageResponse(AdminTicketDto)
  @ApiErrors(422)
  list(@Query() query: AdminTicketListQueryDto): Promise<Page<AdminTicketDto>> {
    return this.support.adminList(query);
  }

  @Get(':ticket_id')
  @ApiOperation({ summary: 'A ticket (platform admin)', description: 'Every message, internal notes included.' })
  @ApiOkResponse({ type: AdminTicketWithMessagesDto })
  @ApiErrors(404)
  get(@Param('ticket_id', UuidPipe) id: string): Promise<AdminTicketWithMessagesDto> {
    return this.support.adminGet(id);
  }

  @Post(':ticket_id/messages')
  @ApiOperation({
    summary: 'Reply or add an internal note (platform admin)',
    description:
      'A reply (`internal` false) makes the ticket `waiting_on_user`, sends the person `support.reply` with the ' +
      'text and a link, and publishes `support.replied` (the `support` notification). An internal note changes ' +
      'nothing the person sees.',
  })
  @ApiCreatedResponse({ type: TicketMessageDto })
  @ApiErrors(404, 422)
  reply(
    @CurrentCredential() credential: Credential,
    @Param('ticket_id', UuidPipe) id: string,
    @Body() dto: CreateStaffMessageDto,
  ): Promise<TicketMessageDto> {
    return this.support.staffReply(credential.userId, id, dto);
  }

  @Patch(':ticket_id')
  @ApiOperation({ summary: 'Change status or priority (platform admin)', description: STATES })
  @ApiOkResponse({ type: AdminTicketDto })
  @ApiErrors(404, 422)
  update(@Param('ticket_id', UuidPipe) id: string, @Body() dto: UpdateTicketDto): Promise<AdminTicketDto> {
    return this.support.adminUpdate(id, dto);
  }
}
