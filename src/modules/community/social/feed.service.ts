import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, type PageQueryDto, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import { anonymousPerson, type PersonDto, PeopleService } from '@/modules/tenancy/members';
import { containsBlockedTerm } from './blocked-terms';
import {
  type CommentDto,
  type CommentInputDto,
  type ContentStatus,
  type FeedItemDto,
  type FeedQueryDto,
  type PostInputDto,
  REACTION_KINDS,
  type ReactionKind,
  type ReactionsDto,
  type ContentReportDto,
  type ContentReportInputDto,
  reactionKind,
} from './dto/feed.dto';
import { renderSocialHtml } from './social-markdown';
import {
  type CommentRow,
  type DecoratedItemRow,
  type FeedItemRow,
  type PendingReason,
  type ReportRow,
  type SettingsRow,
  SocialRepository,
} from './social.repository';

const idOr404 = (id: string): string => {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
};

/**
 * The organization's feed (extensions-v2 11): posts, comments, reactions and reports, with the moderation rules
 * that apply when content is written (pre-moderation, blocked terms, auto-hide, mutes). Every write that is a fact
 * publishes its event in its transaction (`post.created` and `comment.created` when the content first becomes
 * visible to everyone, `content.reported`).
 */
@Injectable()
export class FeedService {
  constructor(
    private readonly repository: SocialRepository,
    private readonly people: PeopleService,
    private readonly audit: AuditService,
    private readonly events: DomainEvents,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  /** The settings, or 404 `feature_disabled` when the organization switched the feed off. */
  async enabled(organizationId: string): Promise<SettingsRow> {
    const settings = await this.repository.settings(organizationId);
    if (!settings.feed_enabled) throw ApiError.notFound('The feed is switched off here.', 'feature_disabled');
    return settings;
  }

  private async notMuted(member: Membership): Promise<void> {
    if (await this.repository.activeMute(member.organizationId, member.userId, this.clock.now())) {
      throw ApiError.forbidden('You are muted in this organization’s feed.', 'posting_muted');
    }
  }

  /** The status new or edited content gets: a blocked term holds it, as pre-moderation holds a student’s. */
  private statusFor(
    member: Membership,
    body: string,
    settings: SettingsRow,
  ): { status: ContentStatus; pendingReason: PendingReason | null } {
    if (containsBlockedTerm(body, settings.blocked_terms)) return { status: 'pending', pendingReason: 'blocked_term' };
    if (settings.pre_moderation && member.role === 'student') {
      return { status: 'pending', pendingReason: 'pre_moderation' };
    }
    return { status: 'published', pendingReason: null };
  }

  // Feed and posts.

  async feed(member: Membership, query: FeedQueryDto): Promise<Page<FeedItemDto>> {
    // Switch, total and page in one statement; a page of a switched-off feed is never shown.
    const { enabled, total, rows } = await this.repository.feed(
      member.organizationId,
      member.userId,
      query.kind,
      query,
    );
    if (!enabled) throw ApiError.notFound('The feed is switched off here.', 'feature_disabled');
    return toPage(await this.decoratedItems(member, rows), total, query);
  }

  async getPost(member: Membership, postId: string): Promise<FeedItemDto> {
    await this.enabled(member.organizationId);
    const post = await this.readablePost(member, idOr404(postId));
    return (await this.items(member, [post]))[0];
  }

  async createPost(member: Membership, dto: PostInputDto): Promise<FeedItemDto> {
    const settings = await this.enabled(member.organizationId);
    await this.notMuted(member);
    const now = this.clock.now();
    const { status, pendingReason } = this.statusFor(member, dto.body_md, settings);
    const post = await this.transactions.run(async (tx) => {
      const row = await this.repository.insertPost(
        {
          organizationId: member.organizationId,
          userId: member.userId,
          bodyMd: dto.body_md,
          bodyHtml: renderSocialHtml(dto.body_md),
          status,
          pendingReason,
          now,
        },
        tx,
      );
      if (status === 'published') await this.postCreated(row, tx);
      return row;
    });
    return (await this.items(member, [post]))[0];
  }

  async updatePost(member: Membership, postId: string, dto: PostInputDto): Promise<FeedItemDto> {
    const settings = await this.enabled(member.organizationId);
    const id = idOr404(postId);
    const now = this.clock.now();
    const updated = await this.transactions.run(async (tx) => {
      const post = await this.repository.post(member.organizationId, id, { tx, lock: true });
      if (!post) throw ApiError.notFound();
      if (post.user_id !== member.userId) {
        // Others: 403 when they can see the post, else 404 (its existence is not theirs to learn).
        await this.readablePost(member, id, tx);
        throw ApiError.forbidden('Only its author edits a post.');
      }
      if (post.status === 'removed') throw ApiError.conflict('post_removed', 'The post was removed by a moderator.');
      // A hidden post stays hidden until a moderator decides; anything else follows the rules of a new post.
      const next =
        post.status === 'hidden'
          ? { status: 'hidden' as const, pendingReason: null }
          : this.statusFor(member, dto.body_md, settings);
      const row = await this.repository.updatePostBody(
        member.organizationId,
        id,
        { bodyMd: dto.body_md, bodyHtml: renderSocialHtml(dto.body_md), ...next, now },
        tx,
      );
      if (!post.published_at && row.published_at) await this.postCreated(row, tx);
      return row;
    });
    return (await this.items(member, [updated]))[0];
  }

  /** Its author, or an owner/admin (audited); anyone else gets 404 (clarification 28). */
  async deletePost(member: Membership, postId: string, ip: string | undefined): Promise<void> {
    await this.enabled(member.organizationId);
    const id = idOr404(postId);
    await this.transactions.run(async (tx) => {
      const post = await this.repository.post(member.organizationId, id, { tx, lock: true });
      if (!post) throw ApiError.notFound();
      const own = post.user_id === member.userId;
      if (!own && !isAdmin(member.role)) throw ApiError.notFound();
      await this.repository.deletePost(member.organizationId, id, tx);
      if (!own) {
        await this.audit.record(
          {
            action: 'post.deleted',
            actorId: member.userId,
            organizationId: member.organizationId,
            targetType: 'post',
            targetId: id,
            ip,
            metadata: { author_id: post.user_id, status: post.status },
          },
          tx,
        );
      }
    });
  }

  /** A post the caller may read: the feed's rule, and any post for owners and admins (the moderators). */
  private async readablePost(member: Membership, postId: string, tx?: Tx): Promise<FeedItemRow> {
    const post = isAdmin(member.role)
      ? await this.repository.post(member.organizationId, postId, { tx })
      : await this.repository.visibleItem(member.organizationId, member.userId, postId, tx);
    if (!post || post.kind !== 'post') throw ApiError.notFound();
    return post;
  }

  private async postCreated(row: FeedItemRow, tx: Tx): Promise<void> {
    await this.events.publish(
      tx,
      'post.created',
      { post_id: row.id, author_id: row.user_id },
      { organizationId: row.organization_id, actorId: row.user_id, occurredAt: row.published_at ?? row.created_at },
    );
  }

  /** Feed item records for rows, with their reactions and the caller's own, and persons as the caller sees them. */
  async items(member: Membership, rows: FeedItemRow[]): Promise<FeedItemDto[]> {
    const ids = rows.map((r) => r.id);
    const posts = rows.filter((r) => r.kind === 'post').map((r) => r.id);
    const [counts, mine, comments, people] = await Promise.all([
      this.repository.reactionCounts(ids),
      this.repository.myReactions(ids, member.userId),
      this.repository.publishedCommentCounts(posts),
      this.people.asSeenBy(
        member,
        rows.map((r) => r.user_id),
      ),
    ]);
    return this.records(rows, people, counts, mine, comments);
  }

  /** A page read with its reactions and comment counts in the same statement: only the persons are left to read. */
  private async decoratedItems(member: Membership, rows: DecoratedItemRow[]): Promise<FeedItemDto[]> {
    const people = await this.people.asSeenBy(
      member,
      rows.map((r) => r.user_id),
    );
    const counts = new Map(
      rows.map((r) => [r.id, new Map(Object.entries(r.reaction_counts) as [ReactionKind, number][])]),
    );
    const mine = new Map(rows.map((r) => [r.id, r.my_reactions]));
    const comments = new Map(rows.map((r) => [r.id, r.comments_count ?? 0]));
    return this.records(rows, people, counts, mine, comments);
  }

  private records(
    rows: FeedItemRow[],
    people: Map<string, PersonDto>,
    counts: Map<string, Map<ReactionKind, number>>,
    mine: Map<string, ReactionKind[]>,
    comments: Map<string, number>,
  ): FeedItemDto[] {
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      author: people.get(r.user_id) ?? anonymousPerson(),
      created_at: r.created_at.toISOString(),
      post:
        r.kind === 'post'
          ? {
              body_md: r.body_md ?? '',
              body_html: r.body_html ?? '',
              edited_at: r.edited_at?.toISOString() ?? null,
              status: r.status,
              comments_count: comments.get(r.id) ?? 0,
            }
          : null,
      activity: r.kind === 'post' ? null : r.activity,
      reactions: reactionCounts(counts.get(r.id)),
      my_reactions: mine.get(r.id) ?? [],
    }));
  }

  // Comments.

  async comments(member: Membership, postId: string, query: PageQueryDto): Promise<Page<CommentDto>> {
    await this.enabled(member.organizationId);
    const post = await this.readablePost(member, idOr404(postId));
    const { rows, total } = await this.repository.commentPage(
      member.organizationId,
      post.id,
      member.userId,
      isAdmin(member.role),
      query,
    );
    return toPage(await this.commentViews(member, rows), total, query);
  }

  async createComment(member: Membership, postId: string, dto: CommentInputDto): Promise<CommentDto> {
    const settings = await this.enabled(member.organizationId);
    const id = idOr404(postId);
    await this.readablePost(member, id);
    await this.notMuted(member);
    const now = this.clock.now();
    const { status, pendingReason } = this.statusFor(member, dto.body_md, settings);
    const comment = await this.transactions.run(async (tx) => {
      // The post's lock orders this insert against its deletion and its moderation.
      const post = await this.repository.post(member.organizationId, id, { tx, lock: true });
      if (!post) throw ApiError.notFound();
      const row = await this.repository.insertComment(
        {
          organizationId: member.organizationId,
          postId: id,
          userId: member.userId,
          bodyMd: dto.body_md,
          bodyHtml: renderSocialHtml(dto.body_md),
          status,
          pendingReason,
          now,
        },
        tx,
      );
      if (status === 'published') await this.commentCreated(row, post.user_id, tx);
      return row;
    });
    return (await this.commentViews(member, [comment]))[0];
  }

  /** The comment's author, the post's author, or an owner/admin (audited when not the comment's author). */
  async deleteComment(member: Membership, postId: string, commentId: string, ip: string | undefined): Promise<void> {
    await this.enabled(member.organizationId);
    const pid = idOr404(postId);
    const cid = idOr404(commentId);
    await this.readablePost(member, pid);
    await this.transactions.run(async (tx) => {
      const post = await this.repository.post(member.organizationId, pid, { tx, lock: true });
      const comment = post && (await this.repository.comment(member.organizationId, pid, cid, { tx, lock: true }));
      if (!post || !comment) throw ApiError.notFound();
      const own = comment.user_id === member.userId;
      if (!own && post.user_id !== member.userId && !isAdmin(member.role)) throw ApiError.notFound();
      await this.repository.deleteComment(member.organizationId, cid, tx);
      if (!own) {
        await this.audit.record(
          {
            action: 'comment.deleted',
            actorId: member.userId,
            organizationId: member.organizationId,
            targetType: 'comment',
            targetId: cid,
            ip,
            metadata: { post_id: pid, author_id: comment.user_id, status: comment.status },
          },
          tx,
        );
      }
    });
  }

  async commentCreated(row: CommentRow, postAuthorId: string, tx: Tx): Promise<void> {
    await this.events.publish(
      tx,
      'comment.created',
      { comment_id: row.id, post_id: row.post_id, author_id: row.user_id, post_author_id: postAuthorId },
      { organizationId: row.organization_id, actorId: row.user_id, occurredAt: row.published_at ?? row.created_at },
    );
  }

  async commentViews(member: Membership, rows: CommentRow[]): Promise<CommentDto[]> {
    const people = await this.people.asSeenBy(
      member,
      rows.map((r) => r.user_id),
    );
    return rows.map((r) => ({
      id: r.id,
      post_id: r.post_id,
      author: people.get(r.user_id) ?? anonymousPerson(),
      body_md: r.body_md,
      body_html: r.body_html,
      status: r.status,
      created_at: r.created_at.toISOString(),
      edited_at: r.edited_at?.toISOString() ?? null,
    }));
  }

  // Reactions: on any feed item the caller sees; one per person and kind.

  async react(member: Membership, itemId: string, kind: string): Promise<ReactionsDto> {
    const k = this.kind(kind);
    await this.enabled(member.organizationId);
    const item = await this.reactable(member, itemId);
    await this.notMuted(member);
    await this.repository.react(member.organizationId, item.id, member.userId, k, this.clock.now());
    return this.reactionsOf(member, item.id);
  }

  async unreact(member: Membership, itemId: string, kind: string): Promise<void> {
    const k = this.kind(kind);
    await this.enabled(member.organizationId);
    const item = await this.reactable(member, itemId);
    await this.repository.unreact(member.organizationId, item.id, member.userId, k);
  }

  private kind(kind: string): ReactionKind {
    if (!reactionKind(kind)) {
      throw ApiError.validation([{ field: 'kind', message: `kind must be one of ${REACTION_KINDS.join(', ')}` }]);
    }
    return kind;
  }

  private async reactable(member: Membership, itemId: string): Promise<FeedItemRow> {
    const item = await this.repository.visibleItem(member.organizationId, member.userId, idOr404(itemId));
    if (!item) throw ApiError.notFound();
    return item;
  }

  private async reactionsOf(member: Membership, itemId: string): Promise<ReactionsDto> {
    const [counts, mine] = await Promise.all([
      this.repository.reactionCounts([itemId]),
      this.repository.myReactions([itemId], member.userId),
    ]);
    return { reactions: reactionCounts(counts.get(itemId)), my_reactions: mine.get(itemId) ?? [] };
  }

  // Reports.

  async reportPost(
    member: Membership,
    postId: string,
    dto: ContentReportInputDto,
  ): Promise<{ report: ContentReportDto; created: boolean }> {
    const settings = await this.enabled(member.organizationId);
    const post = await this.readablePost(member, idOr404(postId));
    if (post.user_id === member.userId) {
      throw ApiError.validation([{ field: 'post_id', message: 'You cannot report your own post.' }]);
    }
    return this.report(member, 'post', post.id, null, dto, settings);
  }

  async reportComment(
    member: Membership,
    postId: string,
    commentId: string,
    dto: ContentReportInputDto,
  ): Promise<{ report: ContentReportDto; created: boolean }> {
    const settings = await this.enabled(member.organizationId);
    const post = await this.readablePost(member, idOr404(postId));
    const comment = await this.repository.comment(member.organizationId, post.id, idOr404(commentId));
    const visible =
      comment &&
      (comment.status === 'published' ||
        isAdmin(member.role) ||
        (comment.user_id === member.userId && comment.status !== 'removed'));
    if (!comment || !visible) throw ApiError.notFound();
    if (comment.user_id === member.userId) {
      throw ApiError.validation([{ field: 'comment_id', message: 'You cannot report your own comment.' }]);
    }
    return this.report(member, 'comment', post.id, comment.id, dto, settings);
  }

  /**
   * Records the report once per person and item (a repeat answers the first one). Under the item's lock, in the
   * same transaction: when the open reports reach `auto_hide_after_reports`, a published item becomes `hidden`, so
   * the report that reaches the threshold hides it before anyone else can read it as published.
   */
  private async report(
    member: Membership,
    itemType: 'post' | 'comment',
    postId: string,
    commentId: string | null,
    dto: ContentReportInputDto,
    settings: SettingsRow,
  ): Promise<{ report: ContentReportDto; created: boolean }> {
    const itemId = commentId ?? postId;
    const now = this.clock.now();
    return this.transactions.run(async (tx) => {
      const item =
        itemType === 'post'
          ? await this.repository.post(member.organizationId, postId, { tx, lock: true })
          : await this.repository.comment(member.organizationId, postId, itemId, { tx, lock: true });
      if (!item) throw ApiError.notFound();
      const existing = await this.repository.existingReport(itemType, itemId, member.userId, tx);
      if (existing) return { report: reportDto(existing), created: false };
      const row = await this.repository.insertReport(
        {
          organizationId: member.organizationId,
          itemType,
          postId,
          commentId,
          userId: member.userId,
          reason: dto.reason,
          details: dto.details ?? null,
          now,
        },
        tx,
      );
      if (!row) throw new Error('A report raced past the item lock');
      const open = await this.repository.openReportCount(itemType, itemId, tx);
      if (item.status === 'published' && open >= settings.auto_hide_after_reports) {
        if (itemType === 'post') await this.repository.setPostStatus(member.organizationId, itemId, 'hidden', now, tx);
        else await this.repository.setCommentStatus(member.organizationId, itemId, 'hidden', now, tx);
      }
      await this.events.publish(
        tx,
        'content.reported',
        { report_id: row.id, item_type: itemType, item_id: itemId },
        { organizationId: member.organizationId, actorId: member.userId, occurredAt: now },
      );
      return { report: reportDto(row), created: true };
    });
  }
}

function reactionCounts(counts: Map<ReactionKind, number> | undefined): Record<ReactionKind, number> {
  return {
    like: counts?.get('like') ?? 0,
    celebrate: counts?.get('celebrate') ?? 0,
    insightful: counts?.get('insightful') ?? 0,
    support: counts?.get('support') ?? 0,
  };
}

function reportDto(row: ReportRow): ContentReportDto {
  return {
    id: row.id,
    item_type: row.item_type,
    item_id: row.comment_id ?? row.post_id,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
  };
}
