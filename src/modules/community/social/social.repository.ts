import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { DataSource, type EntityManager } from 'typeorm';
import { db } from '@/core/database/db';
import { PoolQueries } from '@/core/database/pool-queries';
import type { Tx } from '@/core/database/transaction';
import type { ActivityKind, ContentStatus, ItemKind, ReactionKind, ReportReason } from './dto/feed.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export type PendingReason = 'pre_moderation' | 'blocked_term';

export interface FeedItemRow {
  id: string;
  organization_id: string;
  kind: ItemKind;
  user_id: string;
  created_at: Date;
  activity: Record<string, unknown> | null;
  body_md: string | null;
  body_html: string | null;
  status: ContentStatus;
  pending_reason: PendingReason | null;
  edited_at: Date | null;
  published_at: Date | null;
}

/** A feed item with what its record shows beside the row, read in the page's own statement. */
export interface DecoratedItemRow extends FeedItemRow {
  reaction_counts: Partial<Record<ReactionKind, number>>;
  my_reactions: ReactionKind[];
  comments_count: number | null;
}

export interface CommentRow {
  id: string;
  organization_id: string;
  post_id: string;
  user_id: string;
  body_md: string;
  body_html: string;
  status: ContentStatus;
  pending_reason: PendingReason | null;
  created_at: Date;
  edited_at: Date | null;
  published_at: Date | null;
}

export interface ReportRow {
  id: string;
  item_type: 'post' | 'comment';
  post_id: string;
  comment_id: string | null;
  reason: ReportReason;
  created_at: Date;
}

export interface SettingsRow {
  feed_enabled: boolean;
  pre_moderation: boolean;
  auto_hide_after_reports: number;
  blocked_terms: string[];
}

export const DEFAULT_SETTINGS: SettingsRow = {
  feed_enabled: true,
  pre_moderation: false,
  auto_hide_after_reports: 3,
  blocked_terms: [],
};

export interface QueueRow {
  item_type: 'post' | 'comment';
  item_id: string;
  post_id: string;
  user_id: string;
  name: string | null;
  body_md: string;
  status: ContentStatus;
  pending_reason: PendingReason | null;
  reports: { reason: ReportReason; count: number }[];
  reports_count: number;
  created_at: Date;
}

export interface MuteRow {
  user_id: string;
  name: string | null;
  until: Date;
  reason: string;
  muted_by: string | null;
  created_at: Date;
}

export type FeedFilter = 'all' | 'posts' | 'activity';

const ITEM_COLUMNS = `f.id, f.organization_id, f.kind, f.user_id, f.created_at, f.activity, f.body_md, f.body_html,
  f.status, f.pending_reason, f.edited_at, f.published_at`;
const COMMENT_COLUMNS = `c.id, c.organization_id, c.post_id, c.user_id, c.body_md, c.body_html, c.status,
  c.pending_reason, c.created_at, c.edited_at, c.published_at`;

/**
 * Who may see a feed item (11.1), as SQL over `f` (the item) and `u` (its author or subject), `$2` the viewer: a
 * published post; the viewer's own pending or hidden post; an activity item whose subject has, now, a public profile
 * and is not a minor. The same rule over the counters gives the page's total.
 */
const VISIBLE_ITEM = `(
  (f.kind = 'post' AND (f.status = 'published' OR (f.user_id = $2 AND f.status IN ('pending', 'hidden'))))
  OR (f.kind <> 'post' AND u.public_profile AND u.age_bracket IS DISTINCT FROM 'under_18'))`;
const VISIBLE_COUNT = `(
  (c.is_post AND (c.status = 'published' OR (c.user_id = $2 AND c.status IN ('pending', 'hidden'))))
  OR (NOT c.is_post AND u.public_profile AND u.age_bracket IS DISTINCT FROM 'under_18'))`;

/** Feed items, comments, reactions, reports, moderation settings and mutes; every query takes the organization. */
@Injectable()
export class SocialRepository {
  /** Named statements need a session per connection: the embedded database serves every connection from one. */
  private readonly useNamed: boolean;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly pool: PoolQueries,
  ) {
    this.useNamed = config.database.url !== null;
  }

  private db(tx?: Tx): EntityManager {
    return db(this.dataSource, tx);
  }

  /**
   * The feed's hot reads as named statements on the driver's pool: parsed once per connection and, after a few
   * runs, executed on a cached plan (their planning cost more than their execution over a million items). The
   * embedded database (PGlite) serves all connections from one session, where a name prepared by one connection
   * collides with the next: plain statements there.
   */
  private async named<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    if (!this.useNamed) return this.db().query<T[]>(text, values);
    return this.pool.query<T & object>(name, text, values);
  }

  // Settings.

  async settings(organizationId: string, tx?: Tx): Promise<SettingsRow> {
    const sql = `SELECT feed_enabled, pre_moderation, auto_hide_after_reports, blocked_terms
       FROM moderation_settings WHERE ${orgEq(1)}`;
    const rows = tx
      ? await tx.manager.query<SettingsRow[]>(sql, [organizationId])
      : await this.named<SettingsRow>('social.settings', sql, [organizationId]);
    return rows[0] ?? { ...DEFAULT_SETTINGS };
  }

  async saveSettings(organizationId: string, s: SettingsRow, now: Date, tx: Tx): Promise<SettingsRow> {
    const rows = await tx.manager.query<SettingsRow[]>(
      `INSERT INTO moderation_settings (organization_id, feed_enabled, pre_moderation, auto_hide_after_reports,
         blocked_terms, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (organization_id) DO UPDATE SET feed_enabled = EXCLUDED.feed_enabled,
         pre_moderation = EXCLUDED.pre_moderation, auto_hide_after_reports = EXCLUDED.auto_hide_after_reports,
         blocked_terms = EXCLUDED.blocked_terms, updated_at = EXCLUDED.updated_at
       RETURNING feed_enabled, pre_moderation, auto_hide_after_reports, blocked_terms`,
      [organizationId, s.feed_enabled, s.pre_moderation, s.auto_hide_after_reports, s.blocked_terms, now],
    );
    return rows[0];
  }

  // Feed.

  /**
   * A page of the feed in one statement: the organization's switch and the total (uncorrelated, computed once) on a
   * one-row base, and beside it the page by the `(organization_id, created_at DESC, id DESC)` index with, for its
   * rows only, the reactions, the viewer's own and the published comments. An empty page is one row without an
   * item.
   */
  async feed(
    organizationId: string,
    viewerId: string,
    filter: FeedFilter,
    page: { limit: number; offset: number },
  ): Promise<{ enabled: boolean; total: number; rows: DecoratedItemRow[] }> {
    const kind = filter === 'posts' ? `AND f.kind = 'post'` : filter === 'activity' ? `AND f.kind <> 'post'` : '';
    const counted = filter === 'posts' ? `AND c.is_post` : filter === 'activity' ? `AND NOT c.is_post` : '';
    const rows = await this.named<DecoratedItemRow & { feed_enabled: boolean | null; total: string }>(
      `social.feed.${filter}`,
      `SELECT s.feed_enabled, s.total, d.* FROM (
         SELECT (SELECT m.feed_enabled FROM moderation_settings m WHERE ${orgEq(1, 'm')}) AS feed_enabled,
           (SELECT coalesce(sum(c.n), 0)::text FROM feed_counts c JOIN users_read u ON u.id = c.user_id
             WHERE ${orgEq(1, 'c')} ${counted} AND c.n > 0 AND ${VISIBLE_COUNT}) AS total
       ) s LEFT JOIN LATERAL (
         SELECT p.*,
           coalesce((SELECT jsonb_object_agg(x.kind, x.n) FROM (SELECT r.kind, count(*)::int AS n
             FROM feed_reactions r WHERE r.item_id = p.id GROUP BY r.kind) x), '{}'::jsonb) AS reaction_counts,
           array(SELECT r.kind FROM feed_reactions r WHERE r.item_id = p.id AND r.user_id = $2
             ORDER BY array_position(ARRAY['like', 'celebrate', 'insightful', 'support'], r.kind)) AS my_reactions,
           CASE WHEN p.kind = 'post' THEN (SELECT count(*)::int FROM feed_comments k WHERE k.post_id = p.id
             AND k.status = 'published') END AS comments_count
         FROM (SELECT ${ITEM_COLUMNS} FROM feed_items f JOIN users_read u ON u.id = f.user_id
           WHERE ${orgEq(1, 'f')} ${kind} AND ${VISIBLE_ITEM}
           ORDER BY f.created_at DESC, f.id DESC LIMIT $3 OFFSET $4) p
       ) d ON true
       ORDER BY d.created_at DESC, d.id DESC`,
      [organizationId, viewerId, page.limit, page.offset],
    );
    const first = rows[0];
    return {
      enabled: first?.feed_enabled !== false,
      total: Number(first?.total ?? 0),
      rows: rows.filter((r) => r.id !== null),
    };
  }

  /** An item as the viewer may see it (the feed's rule), or null. */
  async visibleItem(organizationId: string, viewerId: string, itemId: string, tx?: Tx): Promise<FeedItemRow | null> {
    const rows = await this.db(tx).query<FeedItemRow[]>(
      `SELECT ${ITEM_COLUMNS} FROM feed_items f JOIN users_read u ON u.id = f.user_id
       WHERE ${orgEq(1, 'f')} AND f.id = $3 AND ${VISIBLE_ITEM}`,
      [organizationId, viewerId, itemId],
    );
    return rows[0] ?? null;
  }

  async post(
    organizationId: string,
    postId: string,
    opts: { tx?: Tx; lock?: boolean } = {},
  ): Promise<FeedItemRow | null> {
    const rows = await this.db(opts.tx).query<FeedItemRow[]>(
      `SELECT ${ITEM_COLUMNS} FROM feed_items f WHERE ${orgEq(1, 'f')} AND f.id = $2 AND f.kind = 'post'
       ${opts.lock ? 'FOR UPDATE' : ''}`,
      [organizationId, postId],
    );
    return rows[0] ?? null;
  }

  async insertPost(
    values: {
      organizationId: string;
      userId: string;
      bodyMd: string;
      bodyHtml: string;
      status: ContentStatus;
      pendingReason: PendingReason | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<FeedItemRow> {
    const published = values.status === 'published' ? values.now : null;
    const rows = await tx.manager.query<FeedItemRow[]>(
      `INSERT INTO feed_items AS f (organization_id, kind, user_id, created_at, body_md, body_html, status,
         pending_reason, published_at)
       VALUES ($1, 'post', $2, $3, $4, $5, $6, $7, $8) RETURNING ${ITEM_COLUMNS}`,
      [
        values.organizationId,
        values.userId,
        values.now,
        values.bodyMd,
        values.bodyHtml,
        values.status,
        values.pendingReason,
        published,
      ],
    );
    return rows[0];
  }

  async updatePostBody(
    organizationId: string,
    postId: string,
    values: { bodyMd: string; bodyHtml: string; status: ContentStatus; pendingReason: PendingReason | null; now: Date },
    tx: Tx,
  ): Promise<FeedItemRow> {
    const rows = await tx.manager.query<[FeedItemRow[], number]>(
      `UPDATE feed_items AS f SET body_md = $3, body_html = $4, status = $5, pending_reason = $6, edited_at = $7,
         published_at = CASE WHEN $5 = 'published' THEN coalesce(published_at, $7) ELSE published_at END
       WHERE ${orgEq(1)} AND id = $2 RETURNING ${ITEM_COLUMNS}`,
      [organizationId, postId, values.bodyMd, values.bodyHtml, values.status, values.pendingReason, values.now],
    );
    return rows[0][0];
  }

  /** Sets a post's status; `published_at` is set the first time it is published. Returns the row as it was. */
  async setPostStatus(organizationId: string, postId: string, status: ContentStatus, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE feed_items SET status = $3, pending_reason = CASE WHEN $3 = 'pending' THEN pending_reason END,
         published_at = CASE WHEN $3 = 'published' THEN coalesce(published_at, $4) ELSE published_at END
       WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, postId, status, now],
    );
  }

  async deletePost(organizationId: string, postId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM feed_items WHERE ${orgEq(1)} AND id = $2 AND kind = 'post'`, [
      organizationId,
      postId,
    ]);
  }

  /** Activity item written by a subscriber; a redelivered event finds its item and writes nothing. */
  async insertActivity(
    values: {
      organizationId: string;
      userId: string;
      kind: ActivityKind;
      activity: Record<string, unknown>;
      occurredAt: Date;
      eventId: string;
    },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO feed_items (organization_id, kind, user_id, created_at, activity, source_event_id, published_at)
       VALUES ($1, $2, $3, $4, $5, $6, $4)
       ON CONFLICT (source_event_id) WHERE source_event_id IS NOT NULL DO NOTHING`,
      [values.organizationId, values.kind, values.userId, values.occurredAt, values.activity, values.eventId],
    );
  }

  async publishedCommentCounts(postIds: string[]): Promise<Map<string, number>> {
    if (postIds.length === 0) return new Map();
    const rows = await this.db().query<{ post_id: string; n: number }[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT post_id, count(*)::int AS n FROM feed_comments WHERE post_id = ANY($1::uuid[]) AND status = 'published'
       GROUP BY post_id`,
      [postIds],
    );
    return new Map(rows.map((r) => [r.post_id, r.n]));
  }

  // Reactions.

  async reactionCounts(itemIds: string[], tx?: Tx): Promise<Map<string, Map<ReactionKind, number>>> {
    const out = new Map<string, Map<ReactionKind, number>>();
    if (itemIds.length === 0) return out;
    const rows = await this.db(tx).query<{ item_id: string; kind: ReactionKind; n: number }[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT item_id, kind, count(*)::int AS n FROM feed_reactions WHERE item_id = ANY($1::uuid[])
       GROUP BY item_id, kind`,
      [itemIds],
    );
    for (const r of rows) {
      const m = out.get(r.item_id) ?? new Map<ReactionKind, number>();
      m.set(r.kind, r.n);
      out.set(r.item_id, m);
    }
    return out;
  }

  async myReactions(itemIds: string[], userId: string, tx?: Tx): Promise<Map<string, ReactionKind[]>> {
    const out = new Map<string, ReactionKind[]>();
    if (itemIds.length === 0) return out;
    const rows = await this.db(tx).query<{ item_id: string; kind: ReactionKind }[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT item_id, kind FROM feed_reactions WHERE item_id = ANY($1::uuid[]) AND user_id = $2
       ORDER BY array_position(ARRAY['like', 'celebrate', 'insightful', 'support'], kind)`,
      [itemIds, userId],
    );
    for (const r of rows) out.set(r.item_id, [...(out.get(r.item_id) ?? []), r.kind]);
    return out;
  }

  async react(organizationId: string, itemId: string, userId: string, kind: ReactionKind, now: Date): Promise<void> {
    await this.db().query(
      `INSERT INTO feed_reactions (item_id, user_id, kind, organization_id, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING`,
      [itemId, userId, kind, organizationId, now],
    );
  }

  async unreact(organizationId: string, itemId: string, userId: string, kind: ReactionKind): Promise<void> {
    await this.db().query(
      `DELETE FROM feed_reactions WHERE ${orgEq(1)} AND item_id = $2 AND user_id = $3 AND kind = $4`,
      [organizationId, itemId, userId, kind],
    );
  }

  // Comments.

  async comment(
    organizationId: string,
    postId: string,
    commentId: string,
    opts: { tx?: Tx; lock?: boolean } = {},
  ): Promise<CommentRow | null> {
    const rows = await this.db(opts.tx).query<CommentRow[]>(
      `SELECT ${COMMENT_COLUMNS} FROM feed_comments c WHERE ${orgEq(1, 'c')} AND c.post_id = $2 AND c.id = $3
       ${opts.lock ? 'FOR UPDATE' : ''}`,
      [organizationId, postId, commentId],
    );
    return rows[0] ?? null;
  }

  async commentById(organizationId: string, commentId: string, tx?: Tx, lock = false): Promise<CommentRow | null> {
    const rows = await this.db(tx).query<CommentRow[]>(
      `SELECT ${COMMENT_COLUMNS} FROM feed_comments c WHERE ${orgEq(1, 'c')} AND c.id = $2
       ${lock ? 'FOR UPDATE' : ''}`,
      [organizationId, commentId],
    );
    return rows[0] ?? null;
  }

  /** Oldest first; others' comments only when published (all of them for moderators). */
  async commentPage(
    organizationId: string,
    postId: string,
    viewerId: string,
    all: boolean,
    page: { limit: number; offset: number },
  ): Promise<{ rows: CommentRow[]; total: number }> {
    // Moderators see every comment ($3 is still typed by the statement).
    const visible = all
      ? `(c.user_id = $3 OR true)`
      : `(c.status = 'published' OR (c.user_id = $3 AND c.status IN ('pending', 'hidden')))`;
    const params = [organizationId, postId, viewerId];
    const [rows, count] = await Promise.all([
      this.db().query<CommentRow[]>(
        `SELECT ${COMMENT_COLUMNS} FROM feed_comments c WHERE ${orgEq(1, 'c')} AND c.post_id = $2 AND ${visible}
         ORDER BY c.created_at, c.id LIMIT $4 OFFSET $5`,
        [...params, page.limit, page.offset],
      ),
      this.db().query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM feed_comments c WHERE ${orgEq(1, 'c')} AND c.post_id = $2 AND ${visible}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  async insertComment(
    values: {
      organizationId: string;
      postId: string;
      userId: string;
      bodyMd: string;
      bodyHtml: string;
      status: ContentStatus;
      pendingReason: PendingReason | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<CommentRow> {
    const rows = await tx.manager.query<CommentRow[]>(
      `INSERT INTO feed_comments AS c (organization_id, post_id, user_id, body_md, body_html, status, pending_reason,
         created_at, published_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COMMENT_COLUMNS}`,
      [
        values.organizationId,
        values.postId,
        values.userId,
        values.bodyMd,
        values.bodyHtml,
        values.status,
        values.pendingReason,
        values.now,
        values.status === 'published' ? values.now : null,
      ],
    );
    return rows[0];
  }

  async setCommentStatus(
    organizationId: string,
    commentId: string,
    status: ContentStatus,
    now: Date,
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE feed_comments SET status = $3, pending_reason = CASE WHEN $3 = 'pending' THEN pending_reason END,
         published_at = CASE WHEN $3 = 'published' THEN coalesce(published_at, $4) ELSE published_at END
       WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, commentId, status, now],
    );
  }

  async deleteComment(organizationId: string, commentId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM feed_comments WHERE ${orgEq(1)} AND id = $2`, [organizationId, commentId]);
  }

  // Reports.

  async existingReport(
    itemType: 'post' | 'comment',
    itemId: string,
    userId: string,
    tx: Tx,
  ): Promise<ReportRow | null> {
    const column = itemType === 'post' ? 'post_id' : 'comment_id';
    const rows = await tx.manager.query<ReportRow[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT id, item_type, post_id, comment_id, reason, created_at FROM feed_reports
       WHERE item_type = $1 AND ${column} = $2 AND user_id = $3`,
      [itemType, itemId, userId],
    );
    return rows[0] ?? null;
  }

  async insertReport(
    values: {
      organizationId: string;
      itemType: 'post' | 'comment';
      postId: string;
      commentId: string | null;
      userId: string;
      reason: ReportReason;
      details: string | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<ReportRow | null> {
    const rows = await tx.manager.query<ReportRow[]>(
      `INSERT INTO feed_reports (organization_id, item_type, post_id, comment_id, user_id, reason, details, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT DO NOTHING
       RETURNING id, item_type, post_id, comment_id, reason, created_at`,
      [
        values.organizationId,
        values.itemType,
        values.postId,
        values.commentId,
        values.userId,
        values.reason,
        values.details,
        values.now,
      ],
    );
    return rows[0] ?? null;
  }

  async openReportCount(itemType: 'post' | 'comment', itemId: string, tx: Tx): Promise<number> {
    const column = itemType === 'post' ? 'post_id' : 'comment_id';
    const rows = await tx.manager.query<{ n: number }[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT count(*)::int AS n FROM feed_reports WHERE item_type = $1 AND ${column} = $2 AND status = 'open'`,
      [itemType, itemId],
    );
    return rows[0]?.n ?? 0;
  }

  async closeReports(
    itemType: 'post' | 'comment',
    itemId: string,
    status: 'dismissed' | 'upheld',
    now: Date,
    tx: Tx,
  ): Promise<void> {
    const column = itemType === 'post' ? 'post_id' : 'comment_id';
    await tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE feed_reports SET status = $3, decided_at = $4
       WHERE item_type = $1 AND ${column} = $2 AND status = 'open'`,
      [itemType, itemId, status, now],
    );
  }

  // Moderation queue: pending and hidden items and published ones with open reports, oldest first.

  async queue(
    organizationId: string,
    status: 'pending' | 'hidden' | 'reported' | 'all',
    page: { limit: number; offset: number },
  ): Promise<{ rows: QueueRow[]; total: number }> {
    const where =
      status === 'pending'
        ? `q.status = 'pending'`
        : status === 'hidden'
          ? `q.status = 'hidden'`
          : status === 'reported'
            ? `q.reports_count > 0 AND q.status <> 'removed'`
            : `(q.status IN ('pending', 'hidden') OR (q.status = 'published' AND q.reports_count > 0))`;
    const source = `
      WITH open_reports AS (
        SELECT item_type, coalesce(comment_id, post_id) AS item_id, reason, count(*)::int AS n
        FROM feed_reports WHERE ${orgEq(1)} AND status = 'open' GROUP BY 1, 2, 3
      ), candidates AS (
        SELECT 'post'::text AS item_type, f.id AS item_id, f.id AS post_id, f.user_id, f.body_md, f.status,
          f.pending_reason, f.created_at
        FROM feed_items f WHERE ${orgEq(1, 'f')} AND f.kind = 'post'
          AND (f.status IN ('pending', 'hidden') OR f.id IN (SELECT item_id FROM open_reports WHERE item_type = 'post'))
        UNION ALL
        SELECT 'comment', c.id, c.post_id, c.user_id, c.body_md, c.status, c.pending_reason, c.created_at
        FROM feed_comments c WHERE ${orgEq(1, 'c')}
          AND (c.status IN ('pending', 'hidden') OR c.id IN (SELECT item_id FROM open_reports WHERE item_type = 'comment'))
      ), q AS (
        SELECT k.*, coalesce((SELECT sum(r.n) FROM open_reports r WHERE r.item_type = k.item_type
            AND r.item_id = k.item_id), 0)::int AS reports_count
        FROM candidates k
      )`;
    const [rows, count] = await Promise.all([
      this.db().query<QueueRow[]>(
        `${source}
         SELECT q.item_type, q.item_id, q.post_id, q.user_id, u.name, q.body_md, q.status, q.pending_reason,
           q.reports_count, q.created_at,
           coalesce((SELECT jsonb_agg(jsonb_build_object('reason', r.reason, 'count', r.n) ORDER BY r.n DESC, r.reason)
             FROM open_reports r WHERE r.item_type = q.item_type AND r.item_id = q.item_id), '[]'::jsonb) AS reports
         FROM q JOIN users_read u ON u.id = q.user_id WHERE ${where}
         ORDER BY q.created_at, q.item_id LIMIT $2 OFFSET $3`,
        [organizationId, page.limit, page.offset],
      ),
      this.db().query<{ n: number }[]>(`${source} SELECT count(*)::int AS n FROM q WHERE ${where}`, [organizationId]),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  // Mutes.

  async activeMute(organizationId: string, userId: string, now: Date): Promise<{ until: Date } | null> {
    const rows = await this.db().query<{ until: Date }[]>(
      `SELECT until FROM member_mutes WHERE ${orgEq(1)} AND user_id = $2 AND until > $3`,
      [organizationId, userId, now],
    );
    return rows[0] ?? null;
  }

  async mutePage(
    organizationId: string,
    now: Date,
    page: { limit: number; offset: number },
  ): Promise<{ rows: MuteRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db().query<MuteRow[]>(
        `SELECT m.user_id, u.name, m.until, m.reason, m.muted_by, m.created_at
         FROM member_mutes m JOIN users_read u ON u.id = m.user_id
         WHERE ${orgEq(1, 'm')} AND m.until > $2 ORDER BY m.created_at DESC, m.user_id LIMIT $3 OFFSET $4`,
        [organizationId, now, page.limit, page.offset],
      ),
      this.db().query<{ n: number }[]>(`SELECT count(*)::int AS n FROM member_mutes WHERE ${orgEq(1)} AND until > $2`, [
        organizationId,
        now,
      ]),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  /** Creates or replaces; `replaced` when an unexpired mute existed. */
  async upsertMute(
    values: { organizationId: string; userId: string; until: Date; reason: string; mutedBy: string; now: Date },
    tx: Tx,
  ): Promise<{ row: MuteRow; replaced: boolean }> {
    const before = await tx.manager.query<{ until: Date }[]>(
      `SELECT until FROM member_mutes WHERE ${orgEq(1)} AND user_id = $2 FOR UPDATE`,
      [values.organizationId, values.userId],
    );
    const replaced = before.length > 0 && before[0].until > values.now;
    const rows = await tx.manager.query<MuteRow[]>(
      `WITH m AS (
         INSERT INTO member_mutes (organization_id, user_id, until, reason, muted_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (organization_id, user_id) DO UPDATE SET until = EXCLUDED.until, reason = EXCLUDED.reason,
           muted_by = EXCLUDED.muted_by, created_at = EXCLUDED.created_at
         RETURNING *)
       SELECT m.user_id, u.name, m.until, m.reason, m.muted_by, m.created_at FROM m JOIN users_read u ON u.id = m.user_id`,
      [values.organizationId, values.userId, values.until, values.reason, values.mutedBy, values.now],
    );
    return { row: rows[0], replaced };
  }

  /** Removes the mute; false when there was none in force (an expired one is removed all the same). */
  async deleteMute(organizationId: string, userId: string, now: Date, tx: Tx): Promise<boolean> {
    const [rows] = await tx.manager.query<[{ until: Date }[], number]>(
      `DELETE FROM member_mutes WHERE ${orgEq(1)} AND user_id = $2 RETURNING until`,
      [organizationId, userId],
    );
    return rows.length > 0 && rows[0].until > now;
  }

  // ---- subjects of activity items, through their owners' read views ----

  /** Whether the person's activity may be shown now: a public profile, and not a minor. */
  /** Of these people, those whose profile is public and who are not minors (their facts go to the feed). */
  async profilesShown(userIds: readonly string[], tx: Tx): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await tx.manager.query<{ id: string }[]>(
      `SELECT id FROM users_read WHERE id = ANY($1::uuid[])
         AND public_profile AND age_bracket IS DISTINCT FROM 'under_18'`,
      [userIds],
    );
    return new Set(rows.map((r) => r.id));
  }

  async courseTitle(courseId: string, tx: Tx): Promise<string | null> {
    const rows = await tx.manager.query<{ title: string }[]>(`SELECT title FROM courses_read WHERE id = $1`, [
      courseId,
    ]);
    return rows[0]?.title ?? null;
  }

  /** The person's latest award of the badge in the organization. */
  async latestBadge(
    organizationId: string,
    userId: string,
    code: string,
    tx: Tx,
  ): Promise<{ name: string; icon: string | null } | null> {
    const rows = await tx.manager.query<{ name: string; icon: string | null }[]>(
      `SELECT name, icon FROM badge_awards_read WHERE ${orgEq(1)} AND user_id = $2 AND code = $3
       ORDER BY awarded_at DESC LIMIT 1`,
      [organizationId, userId, code],
    );
    return rows[0] ?? null;
  }

  async certificate(
    organizationId: string,
    certificateId: string,
    tx: Tx,
  ): Promise<{ type: string; title: string; replaces_id: string | null } | null> {
    const rows = await tx.manager.query<{ type: string; title: string; replaces_id: string | null }[]>(
      `SELECT type, title, replaces_id FROM issued_certificates_read WHERE id = $1 AND ${orgEq(2)}`,
      [certificateId, organizationId],
    );
    return rows[0] ?? null;
  }

  async pathTitle(pathId: string, tx: Tx): Promise<string | null> {
    const rows = await tx.manager.query<{ title: string }[]>(`SELECT title FROM learning_paths_read WHERE id = $1`, [
      pathId,
    ]);
    return rows[0]?.title ?? null;
  }
}
