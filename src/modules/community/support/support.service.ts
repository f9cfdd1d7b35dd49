import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { MailService } from '@/core/mail/mail.service';
import { resolveLocale } from '@/core/mail/mail-template';
import { UsersService } from '@/modules/identity/users';
import type {
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
import { AUTO_CLOSE_MS, REOPEN_WINDOW_MS } from './support.types';
import { NEW_TICKET, SUPPORT_REPLY, TICKET_RECEIVED } from './support.mails';
import { renderSupportHtml } from './support-markdown';
import { type MessageRow, SupportRepository, type TicketRow } from './support.repository';

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

/** Support tickets (extensions-v2 19): a person writes to the platform's staff (platform admins). */
@Injectable()
export class SupportService {
  constructor(
    private readonly repository: SupportRepository,
    private readonly transactions: TransactionRunner,
    private readonly events: DomainEvents,
    private readonly mail: MailService,
    private readonly users: UsersService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(credential: Credential, dto: CreateTicketDto): Promise<TicketWithMessagesDto> {
    let organizationId: string | null = null;
    if (dto.organization_id) {
      organizationId = dto.organization_id.toLowerCase();
      const tokenElsewhere = credential.organizationId !== null && credential.organizationId !== organizationId;
      if (tokenElsewhere || !(await this.repository.isMember(organizationId, credential.userId)))
        throw ApiError.notFound('Organization not found.');
    }
    const user = await this.users.getById(credential.userId);
    const now = this.clock.now();
    const id = await this.transactions.run(async (tx) => {
      const ticketId = await this.repository.insertTicket(
        {
          userId: credential.userId,
          organizationId,
          subject: dto.subject,
          category: dto.category,
          client: dto.client ?? null,
          now,
        },
        tx,
      );
      await this.repository.insertMessage(
        { ticketId, kind: 'user', authorId: credential.userId, body: dto.body, internal: false, now },
        tx,
      );
      const ticket = (await this.repository.find(ticketId, null, tx))!;
      const number = Number(ticket.number);
      await this.mail.send(
        TICKET_RECEIVED,
        { number, subject: dto.subject, url: `${this.config.webUrl}/support/${ticketId}` },
        { to: user.email, locale: user.locale, organizationId: null, tx },
      );
      if (this.config.supportInbox) {
        await this.mail.send(
          NEW_TICKET,
          {
            number,
            subject: dto.subject,
            category: dto.category,
            url: `${this.config.webUrl}/admin/support/${ticketId}`,
          },
          { to: this.config.supportInbox, locale: 'en', organizationId: null, tx },
        );
      }
      return ticketId;
    });
    return this.get(credential, id);
  }

  async list(credential: Credential, query: TicketListQueryDto): Promise<Page<TicketDto>> {
    const { rows, total } = await this.repository.list({
      userId: credential.userId,
      organizationId: credential.organizationId,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    return toPage(
      rows.map((r) => this.ticket(r)),
      total,
      query,
    );
  }

  async get(credential: Credential, id: string): Promise<TicketWithMessagesDto> {
    const ticket = await this.own(credential, id);
    const messages = await this.repository.messages(ticket.id, false);
    return { ...this.ticket(ticket), messages: messages.map((m) => this.message(m, false)) };
  }

  /** A person's message: the ticket becomes `open` (reopened when closed less than 30 days ago). */
  async reply(credential: Credential, id: string, dto: CreateMessageDto): Promise<TicketMessageDto> {
    await this.own(credential, id);
    const now = this.clock.now();
    return this.transactions.run(async (tx) => {
      const ticket = (await this.repository.find(id.toLowerCase(), credential.userId, tx, true))!;
      if (
        ticket.status === 'closed' &&
        ticket.closed_at &&
        now.getTime() - new Date(ticket.closed_at).getTime() >= REOPEN_WINDOW_MS
      ) {
        throw ApiError.conflict('ticket_closed', 'This ticket was closed more than 30 days ago: open a new one.');
      }
      const messageId = await this.repository.insertMessage(
        { ticketId: ticket.id, kind: 'user', authorId: credential.userId, body: dto.body, internal: false, now },
        tx,
      );
      await this.repository.update(ticket.id, { status: 'open', closed_at: null, last_message_at: now }, now, tx);
      return this.message(await this.repository.message(messageId, tx), false);
    });
  }

  async close(credential: Credential, id: string): Promise<TicketDto> {
    const ticket = await this.own(credential, id);
    if (ticket.status !== 'closed') {
      const now = this.clock.now();
      await this.transactions.run((tx) =>
        this.repository.update(ticket.id, { status: 'closed', closed_at: now }, now, tx),
      );
    }
    return this.ticket((await this.repository.find(ticket.id, credential.userId))!);
  }

  // ---- staff ----

  async adminList(query: AdminTicketListQueryDto): Promise<Page<AdminTicketDto>> {
    const { rows, total } = await this.repository.list({
      userId: null,
      organizationId: null,
      status: query.status,
      category: query.category,
      priority: query.priority,
      q: query.q,
      limit: query.limit,
      offset: query.offset,
    });
    return toPage(
      rows.map((r) => this.adminTicket(r)),
      total,
      query,
    );
  }

  async adminGet(id: string): Promise<AdminTicketWithMessagesDto> {
    const ticket = await this.repository.find(id.toLowerCase(), null);
    if (!ticket) throw ApiError.notFound();
    const messages = await this.repository.messages(ticket.id, true);
    return { ...this.adminTicket(ticket), messages: messages.map((m) => this.message(m, true)) };
  }

  /** A staff message: a reply makes the ticket `waiting_on_user`, emails the person and publishes the event. */
  async staffReply(staffId: string, id: string, dto: CreateStaffMessageDto): Promise<TicketMessageDto> {
    const now = this.clock.now();
    const internal = dto.internal ?? false;
    return this.transactions.run(async (tx) => {
      const ticket = await this.repository.find(id.toLowerCase(), null, tx, true);
      if (!ticket) throw ApiError.notFound();
      const messageId = await this.repository.insertMessage(
        { ticketId: ticket.id, kind: 'staff', authorId: staffId, body: dto.body, internal, now },
        tx,
      );
      if (!internal) {
        await this.repository.update(
          ticket.id,
          { status: 'waiting_on_user', closed_at: null, last_message_at: now, last_staff_reply_at: now },
          now,
          tx,
        );
        await this.notifyReply(ticket, dto.body, staffId, tx);
      }
      return this.message(await this.repository.message(messageId, tx), true);
    });
  }

  async adminUpdate(id: string, dto: UpdateTicketDto): Promise<AdminTicketDto> {
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      const ticket = await this.repository.find(id.toLowerCase(), null, tx, true);
      if (!ticket) throw ApiError.notFound();
      const set: Parameters<SupportRepository['update']>[1] = {};
      if (dto.priority) set.priority = dto.priority;
      if (dto.status && dto.status !== ticket.status) {
        set.status = dto.status;
        set.closed_at = dto.status === 'closed' ? now : null;
      }
      if (Object.keys(set).length > 0) await this.repository.update(ticket.id, set, now, tx);
    });
    return this.adminTicket((await this.repository.find(id.toLowerCase(), null))!);
  }

  /** The schedule: tickets waiting on the person for 14 days close. */
  async autoClose(): Promise<number> {
    const now = this.clock.now();
    return (await this.repository.autoClose(new Date(now.getTime() - AUTO_CLOSE_MS), now)).length;
  }

  private async notifyReply(ticket: TicketRow, body: string, staffId: string, tx: Tx): Promise<void> {
    await this.events.publish(
      tx,
      'support.replied',
      { ticket_id: ticket.id, user_id: ticket.user_id },
      { organizationId: ticket.organization_id, actorId: staffId },
    );
    const person = await this.users.getById(ticket.user_id);
    await this.mail.send(
      SUPPORT_REPLY,
      {
        number: Number(ticket.number),
        subject: ticket.subject,
        reply: body,
        url: `${this.config.webUrl}/support/${ticket.id}`,
      },
      { to: person.email, locale: resolveLocale(person.locale), organizationId: null, tx },
    );
  }

  private async own(credential: Credential, id: string): Promise<TicketRow> {
    const ticket = await this.repository.find(id.toLowerCase(), credential.userId);
    // A bearer token sees the tickets of its organization and those without one (2.4).
    if (
      !ticket ||
      (credential.organizationId !== null &&
        ticket.organization_id !== null &&
        ticket.organization_id !== credential.organizationId)
    )
      throw ApiError.notFound();
    return ticket;
  }

  private ticket(r: TicketRow): TicketDto {
    return {
      id: r.id,
      number: Number(r.number),
      subject: r.subject,
      category: r.category,
      organization_id: r.organization_id,
      status: r.status,
      priority: r.priority,
      created_at: iso(r.created_at)!,
      updated_at: iso(r.updated_at)!,
      closed_at: iso(r.closed_at),
      last_message_at: iso(r.last_message_at)!,
    };
  }

  private adminTicket(r: TicketRow): AdminTicketDto {
    return { ...this.ticket(r), requester: { user_id: r.user_id, name: r.requester_name, email: r.requester_email } };
  }

  private message(m: MessageRow, staffView: boolean): TicketMessageDto {
    return {
      id: m.id,
      author: { kind: m.author_kind, name: m.author_name },
      body: m.body,
      body_html: renderSupportHtml(m.body),
      ...(staffView ? { internal: m.internal } : {}),
      created_at: iso(m.created_at)!,
    };
  }
}
