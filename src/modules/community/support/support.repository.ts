import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { TicketCategory, TicketPriority, TicketStatus } from './support.types';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface TicketRow {
  id: string;
  number: string;
  user_id: string;
  organization_id: string | null;
  subject: string;
  category: TicketCategory;
  status: TicketStatus;
  priority: TicketPriority;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
  last_message_at: Date;
  last_staff_reply_at: Date | null;
  requester_name: string | null;
  requester_email: string;
}

export interface MessageRow {
  id: string;
  ticket_id: string;
  author_kind: 'user' | 'staff';
  author_name: string | null;
  body: string;
  internal: boolean;
  created_at: Date;
}

const TICKET = `t.id, t.number, t.user_id, t.organization_id, t.subject, t.category, t.status, t.priority, t.created_at,
  t.updated_at, t.closed_at, t.last_message_at, t.last_staff_reply_at, u.name AS requester_name,
  u.email AS requester_email`;
const FROM = `support_tickets t JOIN users_read u ON u.id = t.user_id`;

@Injectable()
export class SupportRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertTicket(
    v: {
      userId: string;
      organizationId: string | null;
      subject: string;
      category: TicketCategory;
      client: object | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO support_tickets (user_id, organization_id, subject, category, client, created_at, updated_at,
         last_message_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $6) RETURNING id`,
      [v.userId, v.organizationId, v.subject, v.category, v.client ? JSON.stringify(v.client) : null, v.now],
    );
    return rows[0].id;
  }

  async insertMessage(
    v: { ticketId: string; kind: 'user' | 'staff'; authorId: string; body: string; internal: boolean; now: Date },
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO support_messages (ticket_id, author_kind, author_id, body, internal, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [v.ticketId, v.kind, v.authorId, v.body, v.internal, v.now],
    );
    return rows[0].id;
  }

  /**
   * A ticket; with `userId`, only that person's (without: platform support staff, who work across organizations).
   * `lock` takes the row for the transaction.
   */
  async find(id: string, userId: string | null, tx?: Tx, lock = false): Promise<TicketRow | null> {
    const rows = await db(this.dataSource, tx).query<TicketRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT ${TICKET} FROM ${FROM} WHERE t.id = $1 AND ($2::uuid IS NULL OR t.user_id = $2)
       ${lock ? 'FOR UPDATE OF t' : ''}`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  async messages(ticketId: string, withInternal: boolean, tx?: Tx): Promise<MessageRow[]> {
    return db(this.dataSource, tx).query<MessageRow[]>(
      `SELECT m.id, m.ticket_id, m.author_kind, u.name AS author_name, m.body, m.internal, m.created_at
       FROM support_messages m LEFT JOIN users_read u ON u.id = m.author_id
       WHERE m.ticket_id = $1 AND ($2 OR NOT m.internal) ORDER BY m.created_at, m.id`,
      [ticketId, withInternal],
    );
  }

  async message(id: string, tx: Tx): Promise<MessageRow> {
    const rows = await tx.manager.query<MessageRow[]>(
      `SELECT m.id, m.ticket_id, m.author_kind, u.name AS author_name, m.body, m.internal, m.created_at
       FROM support_messages m LEFT JOIN users_read u ON u.id = m.author_id WHERE m.id = $1`,
      [id],
    );
    return rows[0];
  }

  async update(
    id: string,
    set: Partial<{
      status: TicketStatus;
      priority: TicketPriority;
      closed_at: Date | null;
      last_message_at: Date;
      last_staff_reply_at: Date;
    }>,
    now: Date,
    tx: Tx,
  ): Promise<void> {
    const keys = Object.keys(set) as (keyof typeof set)[];
    const assignments = keys.map((k, i) => `${k} = $${i + 3}`);
    await tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE support_tickets SET ${[...assignments, 'updated_at = $2'].join(', ')} WHERE id = $1`,
      [id, now, ...keys.map((k) => set[k])],
    );
  }

  async list(filter: {
    userId: string | null;
    /** A bearer token's organization: its tickets and those without organization. */
    organizationId: string | null;
    status?: string;
    category?: string;
    priority?: string;
    q?: string;
    limit: number;
    offset: number;
  }): Promise<{ rows: TicketRow[]; total: number }> {
    const number = filter.q && /^#?\d{1,18}$/.test(filter.q) ? filter.q.replace('#', '') : null;
    const where = `($1::uuid IS NULL OR t.user_id = $1)
      AND ($2::uuid IS NULL OR t.organization_id IS NULL OR ${orgEq(2, 't')})
      AND ($3::text IS NULL OR t.status = $3) AND ($4::text IS NULL OR t.category = $4)
      AND ($5::text IS NULL OR t.priority = $5)
      AND ($6::text IS NULL OR t.subject ILIKE '%' || $6 || '%' OR t.number = $7::bigint)`;
    const q = filter.q ? filter.q.replace(/[\\%_]/g, (c) => `\\${c}`) : null;
    const params = [
      filter.userId,
      filter.organizationId,
      filter.status ?? null,
      filter.category ?? null,
      filter.priority ?? null,
      q,
      number,
    ];
    const [rows, total] = await Promise.all([
      this.dataSource.query<TicketRow[]>(
        `SELECT ${TICKET} FROM ${FROM} WHERE ${where} ORDER BY t.updated_at DESC, t.id DESC LIMIT $8 OFFSET $9`,
        [...params, filter.limit, filter.offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM support_tickets t WHERE ${where}`, params),
    ]);
    return { rows, total: total[0].n };
  }

  /** Tickets waiting on the person since before `before`: closed, with their ids. */
  async autoClose(before: Date, now: Date): Promise<string[]> {
    const [rows] = await this.dataSource.query<[{ id: string }[], number]>(
      `${tenancyExempt('cross-organization-job')} UPDATE support_tickets SET status = 'closed', closed_at = $2, updated_at = $2
       WHERE status = 'waiting_on_user' AND last_staff_reply_at <= $1 RETURNING id`,
      [before, now],
    );
    return rows.map((r) => r.id);
  }

  async isMember(organizationId: string, userId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM memberships_read WHERE ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId],
    );
    return rows.length > 0;
  }
}
