import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * The person's support tickets with the messages they can see (`support.json`; internal notes are staff's, not
 * shown). On erasure the tickets and their messages are deleted.
 */
@Injectable()
@PersonalData({ area: 'support', key: 'tickets', tables: ['support_tickets'] })
export class SupportTicketsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT t.id, t.number, t.organization_id, t.subject, t.category, t.status, t.priority, t.client, t.created_at,
         t.closed_at,
         coalesce((SELECT jsonb_agg(jsonb_build_object('author_kind', m.author_kind, 'body', m.body,
             'created_at', m.created_at) ORDER BY m.created_at)
           FROM support_messages m WHERE m.ticket_id = t.id AND NOT m.internal), '[]'::jsonb) AS messages
       FROM support_tickets t WHERE t.user_id = $1 ORDER BY t.created_at, t.id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM support_tickets WHERE user_id = $1`, [userId]);
  }
}

/**
 * Messages the person wrote as support staff on other people's tickets (`support.json`). On erasure they stay
 * (the requester's conversation) without their author.
 */
@Injectable()
@PersonalData({ area: 'support', key: 'staff_messages', tables: ['support_messages'] })
export class SupportStaffMessagesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT m.id, m.ticket_id, m.internal, m.created_at FROM support_messages m
       JOIN support_tickets t ON t.id = m.ticket_id
       WHERE m.author_id = $1 AND t.user_id <> $1 ORDER BY m.created_at, m.id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE support_messages SET author_id = NULL WHERE author_id = $1`, [userId]);
  }
}
