import { Injectable } from '@nestjs/common';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError, type ErrorDetail } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import { UsersService } from '@/modules/identity/users';
import type {
  NotificationDto,
  NotificationListQueryDto,
  NotificationPreferencesDto,
  UpdatePreferencesDto,
} from './dto/notification.dto';
import {
  type Category,
  type Channel,
  DEFAULT_PREFERENCES,
  effectivePreferences,
  isCategory,
  type PreferenceOverrides,
} from './notification-categories';
import { NotificationsRealtime, toNotificationDto } from './notifications-realtime';
import { NotificationsRepository, type PreferencesRow } from './notifications.repository';
import { DEFAULT_QUIET_HOURS } from './quiet-hours';

const CHANNELS: readonly Channel[] = ['in_app', 'push', 'email'];

/**
 * The inbox and the preferences (extensions-v2 13.5). A bearer token sees the notifications of its organization and
 * those of none (2.4); preferences belong to no organization.
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly repository: NotificationsRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly realtime: NotificationsRealtime,
  ) {}

  async list(credential: Credential, query: NotificationListQueryDto): Promise<Page<NotificationDto>> {
    const { items, total } = await this.repository.list(credential.userId, credential.organizationId, query);
    return toPage(items.map(toNotificationDto), total, query);
  }

  async unreadCount(credential: Credential): Promise<{ unread: number }> {
    return { unread: await this.repository.unreadCount(credential.userId, credential.organizationId) };
  }

  async markRead(credential: Credential, id: string): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound();
    const { found, changed, organizationId } = await this.repository.markRead(
      credential.userId,
      credential.organizationId,
      id.toLowerCase(),
      this.clock.now(),
    );
    if (!found) throw ApiError.notFound();
    if (changed) this.realtime.read(credential.userId, { id: id.toLowerCase(), organizationId });
  }

  async markAllRead(credential: Credential, category: Category | undefined): Promise<{ updated: number }> {
    const updated = await this.repository.markAllRead(
      credential.userId,
      credential.organizationId,
      category ?? null,
      this.clock.now(),
    );
    if (updated > 0) this.realtime.read(credential.userId, { id: null, scope: credential.organizationId });
    return { updated };
  }

  async remove(credential: Credential, id: string): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound();
    if (!(await this.repository.remove(credential.userId, credential.organizationId, id.toLowerCase()))) {
      throw ApiError.notFound();
    }
    this.realtime.countsChanged(credential.userId);
  }

  async preferences(userId: string): Promise<NotificationPreferencesDto> {
    const [row, user] = await Promise.all([this.repository.preferences(userId), this.users.getById(userId)]);
    return this.toDto(row, user.timeZone);
  }

  async updatePreferences(userId: string, dto: UpdatePreferencesDto): Promise<NotificationPreferencesDto> {
    const changes = this.categoryChanges(dto.categories);
    const result = await this.transactions.run(async (tx) => {
      const current = await this.repository.lockPreferences(userId, this.clock.now(), tx);
      const categories: PreferenceOverrides = { ...current.categories };
      for (const [category, channels] of Object.entries(changes) as [Category, Partial<Record<Channel, boolean>>][]) {
        categories[category] = { ...(categories[category] ?? {}), ...channels };
      }
      const quiet = { ...current.quiet, ...stripUndefined(dto.quiet_hours ?? {}) };
      if (quiet.start === quiet.end) {
        throw ApiError.validation([{ field: 'quiet_hours', message: 'start and end must differ' }]);
      }
      const next: PreferencesRow = { categories, quiet };
      await this.repository.savePreferences(userId, next, this.clock.now(), tx);
      return next;
    });
    const user = await this.users.getById(userId);
    return this.toDto(result, user.timeZone);
  }

  /** Checks `{<category>: {in_app?, push?, email?}}`: 422 with every problem at once. */
  private categoryChanges(input: Record<string, unknown> | undefined): PreferenceOverrides {
    if (!input) return {};
    const details: ErrorDetail[] = [];
    const out: PreferenceOverrides = {};
    for (const [category, value] of Object.entries(input)) {
      const field = `categories.${category}`;
      if (!isCategory(category)) {
        details.push({ field, message: 'is not a notification category' });
        continue;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        details.push({ field, message: 'must be an object of in_app, push, email' });
        continue;
      }
      const channels: Partial<Record<Channel, boolean>> = {};
      for (const [channel, flag] of Object.entries(value as Record<string, unknown>)) {
        if (!(CHANNELS as readonly string[]).includes(channel)) {
          details.push({ field: `${field}.${channel}`, message: 'is not a channel (in_app, push, email)' });
        } else if (channel === 'email' && DEFAULT_PREFERENCES[category].email === null) {
          details.push({ field: `${field}.email`, message: 'this category never sends email' });
        } else if (typeof flag !== 'boolean') {
          details.push({ field: `${field}.${channel}`, message: 'must be a boolean' });
        } else channels[channel as Channel] = flag;
      }
      out[category] = channels;
    }
    if (details.length) throw ApiError.validation(details);
    return out;
  }

  private toDto(row: PreferencesRow | null, timeZone: string): NotificationPreferencesDto {
    return {
      categories: effectivePreferences(row?.categories ?? {}),
      quiet_hours: row?.quiet ?? { ...DEFAULT_QUIET_HOURS },
      time_zone: timeZone,
    };
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
