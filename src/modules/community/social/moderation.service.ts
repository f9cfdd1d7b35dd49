import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, type PageQueryDto, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import type { CommentDto, ContentStatus, FeedItemDto } from './dto/feed.dto';
import type {
  DecisionInputDto,
  ModerationSettingsDto,
  ModerationSettingsInputDto,
  MuteDto,
  MuteInputDto,
  QueueItemDto,
  QueueQueryDto,
} from './dto/moderation.dto';
import { FeedService } from './feed.service';
import { type MuteRow, type QueueRow, SocialRepository } from './social.repository';

const MAX_MUTE_MS = 365 * 24 * 3600 * 1000;
const idOr404 = (id: string): string => {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
};

/**
 * Moderation of an organization's feed by its owners and admins (extensions-v2 12): the queue, decisions
 * (audited `moderation.decided`, event `moderation.decided` so the notifications area tells the author), settings
 * and mutes.
 */
@Injectable()
export class ModerationService {
  constructor(
    private readonly repository: SocialRepository,
    private readonly feed: FeedService,
    private readonly organizations: OrganizationsService,
    private readonly audit: AuditService,
    private readonly events: DomainEvents,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async queue(member: Membership, query: QueueQueryDto): Promise<Page<QueueItemDto>> {
    await this.feed.enabled(member.organizationId);
    const { rows, total } = await this.repository.queue(member.organizationId, query.status, query);
    return toPage(rows.map(queueItem), total, query);
  }

  async decidePost(member: Membership, postId: string, dto: DecisionInputDto, ip?: string): Promise<FeedItemDto> {
    await this.feed.enabled(member.organizationId);
    const id = idOr404(postId);
    const now = this.clock.now();
    const row = await this.transactions.run(async (tx) => {
      const post = await this.repository.post(member.organizationId, id, { tx, lock: true });
      if (!post) throw ApiError.notFound();
      const open = await this.repository.openReportCount('post', id, tx);
      this.decidable(post.status, open);
      const status: ContentStatus = dto.action === 'approve' ? 'published' : 'removed';
      await this.repository.setPostStatus(member.organizationId, id, status, now, tx);
      await this.repository.closeReports('post', id, dto.action === 'approve' ? 'dismissed' : 'upheld', now, tx);
      const after = await this.repository.post(member.organizationId, id, { tx });
      if (!after) throw ApiError.notFound();
      // First publication (a pending post approved): the post is created for everyone now.
      if (!post.published_at && after.published_at) {
        await this.events.publish(
          tx,
          'post.created',
          { post_id: id, author_id: post.user_id },
          { organizationId: member.organizationId, actorId: post.user_id, occurredAt: now },
        );
      }
      await this.decided(member, 'post', id, post.user_id, dto, ip, now, tx);
      return after;
    });
    return (await this.feed.items(member, [row]))[0];
  }

  async decideComment(member: Membership, commentId: string, dto: DecisionInputDto, ip?: string): Promise<CommentDto> {
    await this.feed.enabled(member.organizationId);
    const id = idOr404(commentId);
    const now = this.clock.now();
    const row = await this.transactions.run(async (tx) => {
      const comment = await this.repository.commentById(member.organizationId, id, tx, true);
      if (!comment) throw ApiError.notFound();
      const open = await this.repository.openReportCount('comment', id, tx);
      this.decidable(comment.status, open);
      const status: ContentStatus = dto.action === 'approve' ? 'published' : 'removed';
      await this.repository.setCommentStatus(member.organizationId, id, status, now, tx);
      await this.repository.closeReports('comment', id, dto.action === 'approve' ? 'dismissed' : 'upheld', now, tx);
      const after = await this.repository.commentById(member.organizationId, id, tx);
      if (!after) throw ApiError.notFound();
      if (!comment.published_at && after.published_at) {
        const post = await this.repository.post(member.organizationId, comment.post_id, { tx });
        if (post) await this.feed.commentCreated(after, post.user_id, tx);
      }
      await this.decided(member, 'comment', id, comment.user_id, dto, ip, now, tx);
      return after;
    });
    return (await this.feed.commentViews(member, [row]))[0];
  }

  /** Published with no open report, or removed: nothing to decide. */
  private decidable(status: ContentStatus, openReports: number): void {
    if (status === 'removed' || (status === 'published' && openReports === 0)) {
      throw ApiError.conflict('nothing_to_moderate', 'The item has nothing to decide.');
    }
  }

  private async decided(
    member: Membership,
    itemType: 'post' | 'comment',
    itemId: string,
    authorId: string,
    dto: DecisionInputDto,
    ip: string | undefined,
    now: Date,
    tx: Parameters<Parameters<TransactionRunner['run']>[0]>[0],
  ): Promise<void> {
    await this.audit.record(
      {
        action: 'moderation.decided',
        actorId: member.userId,
        organizationId: member.organizationId,
        targetType: itemType,
        targetId: itemId,
        ip,
        metadata: { item_type: itemType, item_id: itemId, action: dto.action, reason: dto.reason },
      },
      tx,
    );
    await this.events.publish(
      tx,
      'moderation.decided',
      {
        item_type: itemType,
        item_id: itemId,
        action: dto.action,
        author_id: authorId,
        warn_author: dto.warn_author === true,
      },
      { organizationId: member.organizationId, actorId: member.userId, occurredAt: now },
    );
  }

  // Settings (reachable with the feed switched off: that is where it is switched back on).

  async settings(member: Membership): Promise<ModerationSettingsDto> {
    return this.repository.settings(member.organizationId);
  }

  async updateSettings(
    member: Membership,
    dto: ModerationSettingsInputDto,
    ip?: string,
  ): Promise<ModerationSettingsDto> {
    const now = this.clock.now();
    return this.transactions.run(async (tx) => {
      const current = await this.repository.settings(member.organizationId, tx);
      const terms = dto.blocked_terms?.map((t) => t.trim());
      if (terms?.some((t) => t.length < 2)) {
        throw ApiError.validation([{ field: 'blocked_terms', message: 'each term must be 2..40 characters' }]);
      }
      const next = {
        feed_enabled: dto.feed_enabled ?? current.feed_enabled,
        pre_moderation: dto.pre_moderation ?? current.pre_moderation,
        auto_hide_after_reports: dto.auto_hide_after_reports ?? current.auto_hide_after_reports,
        blocked_terms: terms ? [...new Set(terms)] : current.blocked_terms,
      };
      const saved = await this.repository.saveSettings(member.organizationId, next, now, tx);
      await this.audit.record(
        {
          action: 'moderation.settings_updated',
          actorId: member.userId,
          organizationId: member.organizationId,
          targetType: 'organization',
          targetId: member.organizationId,
          ip,
          metadata: {
            feed_enabled: saved.feed_enabled,
            pre_moderation: saved.pre_moderation,
            auto_hide_after_reports: saved.auto_hide_after_reports,
            blocked_terms_count: saved.blocked_terms.length,
          },
        },
        tx,
      );
      return saved;
    });
  }

  // Mutes.

  async mutes(member: Membership, query: PageQueryDto): Promise<Page<MuteDto>> {
    await this.feed.enabled(member.organizationId);
    const { rows, total } = await this.repository.mutePage(member.organizationId, this.clock.now(), query);
    return toPage(rows.map(muteDto), total, query);
  }

  async mute(member: Membership, dto: MuteInputDto, ip?: string): Promise<{ mute: MuteDto; replaced: boolean }> {
    await this.feed.enabled(member.organizationId);
    const now = this.clock.now();
    const until = new Date(dto.until);
    if (until.getTime() <= now.getTime() || until.getTime() > now.getTime() + MAX_MUTE_MS) {
      throw ApiError.validation([{ field: 'until', message: 'until must be after now and at most 365 days ahead' }]);
    }
    const userId = dto.user_id.toLowerCase();
    const target = await this.organizations.membership(member.organizationId, userId);
    if (!target) throw ApiError.notFound();
    if (isAdmin(target.role)) throw ApiError.forbidden('Owners and admins cannot be muted.');
    return this.transactions.run(async (tx) => {
      const { row, replaced } = await this.repository.upsertMute(
        { organizationId: member.organizationId, userId, until, reason: dto.reason, mutedBy: member.userId, now },
        tx,
      );
      await this.audit.record(
        {
          action: 'member.muted',
          actorId: member.userId,
          organizationId: member.organizationId,
          targetType: 'user',
          targetId: userId,
          ip,
          metadata: { until: until.toISOString(), reason: dto.reason, replaced },
        },
        tx,
      );
      return { mute: muteDto(row), replaced };
    });
  }

  async unmute(member: Membership, userId: string, ip?: string): Promise<void> {
    await this.feed.enabled(member.organizationId);
    const id = idOr404(userId);
    await this.transactions.run(async (tx) => {
      if (!(await this.repository.deleteMute(member.organizationId, id, this.clock.now(), tx))) {
        throw ApiError.notFound('The member is not muted.');
      }
      await this.audit.record(
        {
          action: 'member.unmuted',
          actorId: member.userId,
          organizationId: member.organizationId,
          targetType: 'user',
          targetId: id,
          ip,
          metadata: {},
        },
        tx,
      );
    });
  }
}

function queueItem(r: QueueRow): QueueItemDto {
  const reasons: QueueItemDto['reasons'] = [];
  if (r.status === 'pending' && r.pending_reason) reasons.push(r.pending_reason);
  if (r.reports_count > 0 || r.status === 'hidden') reasons.push('reports');
  return {
    item_type: r.item_type,
    item_id: r.item_id,
    post_id: r.post_id,
    author: { user_id: r.user_id, name: r.name },
    body_md: r.body_md,
    status: r.status,
    reasons,
    reports: r.reports,
    reports_count: r.reports_count,
    created_at: r.created_at.toISOString(),
  };
}

function muteDto(r: MuteRow): MuteDto {
  return {
    user_id: r.user_id,
    name: r.name,
    until: r.until.toISOString(),
    reason: r.reason,
    muted_by: { user_id: r.muted_by },
    created_at: r.created_at.toISOString(),
  };
}
