import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { AiProviderName } from '@/modules/assistant/ai-usage';
import type { Citation } from './citations';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ConversationRow {
  id: string;
  organization_id: string;
  user_id: string;
  course_id: string;
  lesson_id: string | null;
  title: string | null;
  messages_count: number;
  created_at: Date;
  updated_at: Date;
}

export type MessageStatus = 'complete' | 'interrupted' | 'failed';

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant';
  content: string;
  citations: Citation[];
  status: MessageStatus;
  input_tokens: number | null;
  output_tokens: number | null;
  provider: AiProviderName | null;
  model: string | null;
  finish_reason: 'stop' | 'length' | null;
  created_at: Date;
}

export type NewMessage = Omit<MessageRow, 'conversation_id'>;

const CONVERSATION = `id, organization_id, user_id, course_id, lesson_id, title, messages_count, created_at, updated_at`;
const MESSAGE = `id, conversation_id, role, content, citations, status, input_tokens, output_tokens, provider, model,
  finish_reason, created_at`;

/**
 * Tutor conversations and their messages. Conversations are private to their author: every read and write names
 * the organization and the author, so another member's conversation is simply not found.
 */
/** Reservations of the answers in progress (extensions-v3 6.8). */
export interface InFlight {
  memberTokens: number;
  tokens: number;
  requests: number;
}

@Injectable()
export class TutorRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertConversation(
    values: { organizationId: string; userId: string; courseId: string; lessonId: string | null; now: Date },
    tx?: Tx,
  ): Promise<ConversationRow> {
    const rows = await db(this.dataSource, tx).query<ConversationRow[]>(
      `INSERT INTO tutor_conversations (organization_id, user_id, course_id, lesson_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${CONVERSATION}`,
      [values.organizationId, values.userId, values.courseId, values.lessonId, values.now],
    );
    return rows[0];
  }

  async find(organizationId: string, userId: string, id: string, tx?: Tx): Promise<ConversationRow | null> {
    const rows = await db(this.dataSource, tx).query<ConversationRow[]>(
      `SELECT ${CONVERSATION} FROM tutor_conversations WHERE id = $3 AND ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId, id],
    );
    return rows[0] ?? null;
  }

  /** The author's conversations, most recently updated first (`tutor_conversations_owner_idx` / `_course_idx`). */
  async list(
    organizationId: string,
    userId: string,
    courseId: string | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ConversationRow[]; total: number }> {
    const params: unknown[] = [organizationId, userId];
    let where = `${orgEq(1)} AND user_id = $2`;
    if (courseId) {
      params.push(courseId);
      where += ' AND course_id = $3';
    }
    const [rows, count] = await Promise.all([
      this.dataSource.query<ConversationRow[]>(
        `SELECT ${CONVERSATION} FROM tutor_conversations WHERE ${where}
         ORDER BY updated_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM tutor_conversations WHERE ${where}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  async delete(organizationId: string, userId: string, id: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM tutor_conversations WHERE id = $3 AND ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId, id],
    );
    return count === 1;
  }

  /**
   * Takes the conversation's answering slot until `until` (one answer at a time, across instances); false when an
   * answer holds it. The slot of an answer whose process died frees itself at `until`. Opens `tx`: it must be the
   * transaction's first statement.
   */
  async claimAnswering(
    organizationId: string,
    userId: string,
    id: string,
    now: Date,
    until: Date,
    tx: Tx,
    reservedTokens = 0,
  ): Promise<boolean> {
    // The slot and the question need no durable commit (a crash loses the answer anyway, and the lease frees
    // itself): the transaction commits without waiting for the WAL flush, which the first streamed event would
    // otherwise wait for. Metered calls are never written this way.
    await tx.manager.query(`SET LOCAL synchronous_commit TO OFF`);
    // An UPDATE answers [rows, count] through TypeORM.
    const [rows] = await tx.manager.query<[unknown[], number]>(
      `UPDATE tutor_conversations SET answering_until = $5, answering_reserved_tokens = $6
       WHERE id = $3 AND ${orgEq(1)} AND user_id = $2 AND (answering_until IS NULL OR answering_until <= $4)
       RETURNING id`,
      [organizationId, userId, id, now, until, reservedTokens],
    );
    return rows.length === 1;
  }

  /**
   * What answers in progress in the organization hold (extensions-v3 6.8): their reserved tokens, the member's part
   * of them, and their number (each will be one metered request). A lapsed lease holds nothing.
   */
  async inFlight(organizationId: string, userId: string, now: Date, tx: Tx): Promise<InFlight> {
    const [row] = await tx.manager.query<{ member_tokens: string; tokens: string; requests: number }[]>(
      `SELECT coalesce(sum(answering_reserved_tokens) FILTER (WHERE user_id = $2), 0)::bigint AS member_tokens,
         coalesce(sum(answering_reserved_tokens), 0)::bigint AS tokens, count(*)::int AS requests
       FROM tutor_conversations WHERE ${orgEq(1)} AND answering_until > $3`,
      [organizationId, userId, now],
    );
    return { memberTokens: Number(row.member_tokens), tokens: Number(row.tokens), requests: row.requests };
  }

  async releaseAnswering(organizationId: string, id: string, tx?: Tx): Promise<void> {
    await db(this.dataSource, tx).query(
      `UPDATE tutor_conversations SET answering_until = NULL, answering_reserved_tokens = 0
       WHERE id = $2 AND ${orgEq(1)}`,
      [organizationId, id],
    );
  }

  /**
   * Appends a message, in one statement: the conversation counts it, takes its title from the first question, and
   * is updated now. Nothing is written unless the conversation belongs to the organization.
   */
  async insertMessage(organizationId: string, conversationId: string, message: NewMessage, tx?: Tx): Promise<void> {
    await db(this.dataSource, tx).query(
      `WITH conversation AS (
         UPDATE tutor_conversations SET messages_count = messages_count + 1, updated_at = $12,
           title = coalesce(title, CASE WHEN $3 = 'user' THEN left($4, 80) END)
         WHERE id = $2 AND ${orgEq(13)} RETURNING id
       )
       INSERT INTO tutor_messages (id, conversation_id, role, content, citations, status, input_tokens, output_tokens,
         provider, model, finish_reason, created_at)
       SELECT $1, c.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 FROM conversation c`,
      [
        message.id,
        conversationId,
        message.role,
        message.content,
        JSON.stringify(message.citations),
        message.status,
        message.input_tokens,
        message.output_tokens,
        message.provider,
        message.model,
        message.finish_reason,
        message.created_at,
        organizationId,
      ],
    );
  }

  /** Messages oldest first; `last` keeps only the latest ones. */
  async messages(organizationId: string, conversationId: string, last?: number): Promise<MessageRow[]> {
    const rows = await this.dataSource.query<MessageRow[]>(
      `SELECT ${MESSAGE} FROM (
         SELECT m.* FROM tutor_messages m JOIN tutor_conversations c ON c.id = m.conversation_id
         WHERE m.conversation_id = $2 AND ${orgEq(1, 'c')}
         ORDER BY m.created_at DESC, m.id DESC LIMIT $3
       ) recent ORDER BY created_at, id`,
      [organizationId, conversationId, last ?? null],
    );
    return rows;
  }

  // Personal data (extensions-v2 17.4: conversations and messages deleted).

  async personConversations(userId: string, db: EntityManager): Promise<Record<string, unknown>[]> {
    const conversations = await db.query<Record<string, unknown>[]>(
      `${tenancyExempt('person-across-organizations')} SELECT c.id, c.organization_id, c.course_id, c.lesson_id, c.title, c.created_at, c.updated_at,
         coalesce((SELECT json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content,
             'citations', m.citations, 'status', m.status, 'created_at', m.created_at) ORDER BY m.created_at, m.id)
           FROM tutor_messages m WHERE m.conversation_id = c.id), '[]'::json) AS messages
       FROM tutor_conversations c WHERE c.user_id = $1 ORDER BY c.created_at, c.id`,
      [userId],
    );
    return conversations;
  }

  async deletePersonConversations(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('person-across-organizations')} DELETE FROM tutor_conversations WHERE user_id = $1`,
      [userId],
    );
  }
}
