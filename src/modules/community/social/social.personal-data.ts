import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * What a person wrote or did in organization feeds (extensions-v2 17.4: posts, comments, reactions and reports
 * made are deleted on erasure). Activity items about the person go with their posts (both are feed items of
 * theirs); the counters follow by trigger. The export leaves out other people: a report says what was reported,
 * not whose it was.
 */
@Injectable()
@PersonalData({
  area: 'social',
  key: 'feed',
  tables: ['feed_items', 'feed_comments', 'feed_reactions', 'feed_reports', 'feed_counts'],
})
export class SocialPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const items = await db.query<Record<string, unknown>[]>(
      `SELECT 'feed_item' AS kind, id, organization_id, kind AS item_kind, created_at, activity, body_md, status,
         edited_at
       FROM feed_items WHERE user_id = $1 ORDER BY created_at`,
      [userId],
    );
    const comments = await db.query<Record<string, unknown>[]>(
      `SELECT 'comment' AS kind, id, organization_id, post_id, body_md, status, created_at, edited_at
       FROM feed_comments WHERE user_id = $1 ORDER BY created_at`,
      [userId],
    );
    const reactions = await db.query<Record<string, unknown>[]>(
      `SELECT 'reaction' AS kind, organization_id, item_id, kind AS reaction, created_at
       FROM feed_reactions WHERE user_id = $1 ORDER BY created_at`,
      [userId],
    );
    const reports = await db.query<Record<string, unknown>[]>(
      `SELECT 'report' AS kind, id, organization_id, item_type, coalesce(comment_id, post_id) AS item_id, reason,
         details, status, created_at
       FROM feed_reports WHERE user_id = $1 ORDER BY created_at`,
      [userId],
    );
    return [...items, ...comments, ...reactions, ...reports];
  }

  /** Deleted: comments, reactions and reports on the person's posts go with them (ON DELETE CASCADE). */
  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM feed_reports WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM feed_reactions WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM feed_comments WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM feed_items WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM feed_counts WHERE user_id = $1`, [userId]);
  }
}

/**
 * Mutes: the muted person's (exported; deleted on erasure) and those a moderator imposed (the organization's
 * record: the moderator's id is removed on erasure).
 */
@Injectable()
@PersonalData({ area: 'social', key: 'mutes', tables: ['member_mutes'] })
export class MutesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const mine = await db.query<Record<string, unknown>[]>(
      `SELECT 'muted' AS kind, organization_id, until, reason, created_at FROM member_mutes WHERE user_id = $1`,
      [userId],
    );
    const imposed = await db.query<Record<string, unknown>[]>(
      `SELECT 'muted_someone' AS kind, organization_id, until, created_at FROM member_mutes WHERE muted_by = $1`,
      [userId],
    );
    return [...mine, ...imposed];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM member_mutes WHERE user_id = $1`, [userId]);
    await tx.manager.query(`UPDATE member_mutes SET muted_by = NULL WHERE muted_by = $1`, [userId]);
  }
}
