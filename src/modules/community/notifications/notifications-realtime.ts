import { Injectable, Logger } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import { Realtime, userRoom } from '@/core/realtime/realtime.service';
import type { NotificationDto } from './dto/notification.dto';
import { NotificationsRepository, type NotificationRow } from './notifications.repository';

/** The Socket.IO namespace of extensions-v2 13.4. */
export const NOTIFICATIONS_NAMESPACE = '/notifications';

/**
 * The room of a bearer token's sockets: a token is limited to its organization (2.4), so its sockets leave
 * `user:<id>` (a browser session's, which sees everything) for the room of that organization.
 */
export const tokenRoom = (userId: string, organizationId: string): string => `notif:${userId}:${organizationId}`;

export function toNotificationDto(row: NotificationRow): NotificationDto {
  return {
    id: row.id,
    category: row.category,
    organization_id: row.organization_id,
    title: row.title,
    body: row.body,
    url: row.url,
    data: row.data,
    created_at: row.created_at.toISOString(),
    read_at: row.read_at ? row.read_at.toISOString() : null,
  };
}

/**
 * The real-time events of 13.4, emitted after the change they announce (after commit), from any process (the
 * realtime core reaches every API instance). Browser sessions (`user:<id>`) get every event and the whole unread
 * count; a token's sockets (`notif:<id>:<org>`) get the events of notifications of their organization or of none,
 * and the unread count of that scope. A failure to emit is logged: the inbox is the source of truth.
 */
@Injectable()
export class NotificationsRealtime {
  private readonly logger = new Logger('NotificationsRealtime');

  constructor(
    private readonly realtime: Realtime,
    private readonly repository: NotificationsRepository,
  ) {}

  created(row: NotificationRow, tx: Tx): void {
    if (!this.listening(row.user_id)) return;
    tx.afterCommit(() =>
      this.safely(async () => {
        const rooms = await this.roomsFor(row.user_id, row.organization_id);
        this.realtime.emit(NOTIFICATIONS_NAMESPACE, rooms, 'notification:new', {
          notification: toNotificationDto(row),
        });
        await this.counts(row.user_id);
      }),
    );
  }

  /**
   * `notification:new` for the rows of one fan-out batch: one query for the whole batch, one emit per row. No
   * `unread_count` here (each `notification:new` is one more unread item): a batch of 500 would otherwise cost
   * three emits and two counting queries per person.
   */
  createdMany(rows: readonly NotificationRow[], tx: Tx): void {
    const visible = rows.filter((r) => r.in_app);
    if (visible.length === 0) return;
    tx.afterCommit(() =>
      this.safely(async () => {
        const memberships = visible.some((r) => r.organization_id === null)
          ? await this.repository.membershipsOf([...new Set(visible.map((r) => r.user_id))])
          : new Map<string, string[]>();
        for (const row of visible) {
          const rooms = row.organization_id
            ? [userRoom(row.user_id), tokenRoom(row.user_id, row.organization_id)]
            : [userRoom(row.user_id), ...(memberships.get(row.user_id) ?? []).map((o) => tokenRoom(row.user_id, o))];
          this.realtime.emit(NOTIFICATIONS_NAMESPACE, rooms, 'notification:new', {
            notification: toNotificationDto(row),
          });
        }
      }),
    );
  }

  /**
   * `notification:read` for one notification (its organization decides which token sockets hear of it), or for all
   * (`id` null) read by a credential of `scope` (null: a browser session, every notification).
   */
  read(userId: string, read: { id: string; organizationId: string | null } | { id: null; scope: string | null }): void {
    if (!this.listening(userId)) return;
    void this.safely(async () => {
      const rooms =
        read.id !== null
          ? await this.roomsFor(userId, read.organizationId)
          : read.scope === null
            ? await this.roomsFor(userId, null)
            : [userRoom(userId), tokenRoom(userId, read.scope)];
      this.realtime.emit(NOTIFICATIONS_NAMESPACE, rooms, 'notification:read', { notification_id: read.id });
      await this.counts(userId);
    });
  }

  /** Whether a socket of the person may be connected (without Redis: one of this process's rooms names them). */
  private listening(userId: string): boolean {
    return this.realtime.mayReach(NOTIFICATIONS_NAMESPACE, (room) => room.includes(userId));
  }

  /** `unread_count` to every socket of the person, each with the count of its scope. */
  countsChanged(userId: string): void {
    if (!this.listening(userId)) return;
    void this.safely(() => this.counts(userId));
  }

  private async counts(userId: string): Promise<void> {
    // One after the other: one connection at a time (the embedded database serves one session).
    const total = await this.repository.unreadCount(userId, null);
    const byOrganization = await this.repository.unreadByMembership(userId);
    this.realtime.emit(NOTIFICATIONS_NAMESPACE, userRoom(userId), 'unread_count', { unread: total });
    for (const { organization_id, unread } of byOrganization) {
      this.realtime.emit(NOTIFICATIONS_NAMESPACE, tokenRoom(userId, organization_id), 'unread_count', { unread });
    }
  }

  /** The session room, plus the token room of the organization (of every membership for one of no organization). */
  private async roomsFor(userId: string, organizationId: string | null): Promise<string[]> {
    if (organizationId) return [userRoom(userId), tokenRoom(userId, organizationId)];
    const orgs = await this.repository.membershipOrganizations(userId);
    return [userRoom(userId), ...orgs.map((o) => tokenRoom(userId, o))];
  }

  private async safely(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      this.logger.warn({ err }, 'Real-time notification event not emitted');
    }
  }
}
