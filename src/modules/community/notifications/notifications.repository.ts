import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { Locale } from '@/core/mail/mail-template';
import { visibleTo } from '@/modules/learning/courses';
import { type Category, type PreferenceOverrides, preferenceSql } from './notification-categories';
import type { QuietHours } from './quiet-hours';
import { tenancyExempt } from '@/core/database/tenancy';

export interface NotificationRow {
  id: string;
  user_id: string;
  organization_id: string | null;
  category: Category;
  title: string;
  body: string;
  url: string;
  data: Record<string, string>;
  in_app: boolean;
  created_at: Date;
  read_at: Date | null;
}

/** Who a notification goes to: address, language, zone and preferences (null: never changed). */
export interface Recipient {
  id: string;
  email: string;
  locale: Locale;
  time_zone: string;
  erased: boolean;
  categories: PreferenceOverrides | null;
  quiet: QuietHours;
}

export interface PreferencesRow {
  categories: PreferenceOverrides;
  quiet: QuietHours;
}

export interface SubscriptionRow {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  expiration_time: string | null;
  created_at: Date;
  last_success_at: Date | null;
}

export interface DeviceRow {
  id: string;
  user_id: string;
  platform: 'ios' | 'android';
  token: string;
  app_version: string | null;
  created_at: Date;
  last_success_at: Date | null;
}

export interface NewNotification {
  user_id: string;
  organization_id: string | null;
  category: Category;
  title: string;
  body: string;
  url: string;
  data: Record<string, string>;
  source_key: string;
  in_app: boolean;
}

/** A bearer token sees its organization's items and those of no organization (extensions-v2 2.4). */
const SCOPE = (param: string) =>
  `${tenancyExempt('person-across-organizations')} (${param}::uuid IS NULL OR n.organization_id IS NULL OR n.organization_id = ${param})`;

@Injectable()
export class NotificationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async recipients(userIds: readonly string[], tx?: Tx): Promise<Recipient[]> {
    if (userIds.length === 0) return [];
    const rows = await db(this.dataSource, tx).query<
      (Omit<Recipient, 'quiet'> & { quiet_enabled: boolean | null; quiet_start: string; quiet_end: string })[]
    >(
      `SELECT u.id, u.email, u.locale, u.time_zone, (u.erased_at IS NOT NULL) AS erased, p.categories,
              p.quiet_enabled, p.quiet_start, p.quiet_end
       FROM users_read u LEFT JOIN notification_preferences p ON p.user_id = u.id
       WHERE u.id = ANY($1::uuid[]) ORDER BY u.id`,
      [userIds],
    );
    return rows.map(({ quiet_enabled, quiet_start, quiet_end, ...r }) => ({
      ...r,
      quiet: { enabled: quiet_enabled ?? false, start: quiet_start ?? '22:00', end: quiet_end ?? '07:00' },
    }));
  }

  /** Inserts the notification unless one exists for this source and person; the new row, or null. */
  async insert(n: NewNotification, now: Date, tx: Tx): Promise<NotificationRow | null> {
    const rows = await tx.manager.query<NotificationRow[]>(
      `INSERT INTO notifications (user_id, organization_id, category, title, body, url, data, source_key, in_app, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (source_key, user_id) DO NOTHING
       RETURNING id, user_id, organization_id, category, title, body, url, data, in_app, created_at, read_at`,
      [
        n.user_id,
        n.organization_id,
        n.category,
        n.title,
        n.body,
        n.url,
        JSON.stringify(n.data),
        n.source_key,
        n.in_app,
        now,
      ],
    );
    return rows[0] ?? null;
  }

  find(id: string): Promise<NotificationRow | null> {
    return this.dataSource
      .query<NotificationRow[]>(
        `${tenancyExempt('by-key-after-scoped-read')} SELECT * FROM notifications WHERE id = $1`,
        [id],
      )
      .then((r) => r[0] ?? null);
  }

  async list(
    userId: string,
    scope: string | null,
    filter: { unread?: boolean; category?: Category; limit: number; offset: number },
  ): Promise<{ items: NotificationRow[]; total: number }> {
    const where = `n.user_id = $1 AND n.in_app AND ${SCOPE('$2')}
      AND ($3::boolean IS NULL OR (n.read_at IS NULL) = $3) AND ($4::text IS NULL OR n.category = $4)`;
    const params = [userId, scope, filter.unread ?? null, filter.category ?? null];
    const [items, [{ total }]] = await Promise.all([
      this.dataSource.query<NotificationRow[]>(
        `SELECT n.id, n.user_id, n.organization_id, n.category, n.title, n.body, n.url, n.data, n.in_app,
                n.created_at, n.read_at
         FROM notifications n WHERE ${where}
         ORDER BY n.created_at DESC, n.id DESC LIMIT $5 OFFSET $6`,
        [...params, filter.limit, filter.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM notifications n WHERE ${where}`,
        params,
      ),
    ]);
    return { items, total };
  }

  async unreadCount(userId: string, scope: string | null, tx?: Tx): Promise<number> {
    const [{ unread }] = await db(this.dataSource, tx).query<{ unread: number }[]>(
      `SELECT count(*)::int AS unread FROM notifications n
       WHERE n.user_id = $1 AND n.in_app AND n.read_at IS NULL AND ${SCOPE('$2')}`,
      [userId, scope],
    );
    return unread;
  }

  /** Whether the person's notification exists (in their scope); sets `read_at` when it was unread. */
  async markRead(
    userId: string,
    scope: string | null,
    id: string,
    now: Date,
  ): Promise<{ found: boolean; changed: boolean; organizationId: string | null }> {
    const rows = await this.dataSource.query<{ changed: boolean; organization_id: string | null }[]>(
      `WITH target AS (
         SELECT n.id, n.read_at, n.organization_id FROM notifications n
         WHERE n.id = $3 AND n.user_id = $1 AND n.in_app AND ${SCOPE('$2')}
       ), upd AS (
         UPDATE notifications SET read_at = $4 WHERE id IN (SELECT id FROM target WHERE read_at IS NULL) RETURNING id
       )
       SELECT EXISTS (SELECT 1 FROM upd) AS changed, organization_id FROM target`,
      [userId, scope, id, now],
    );
    return {
      found: rows.length > 0,
      changed: rows[0]?.changed ?? false,
      organizationId: rows[0]?.organization_id ?? null,
    };
  }

  async membershipsOf(userIds: readonly string[]): Promise<Map<string, string[]>> {
    const rows = await this.dataSource.query<{ user_id: string; organization_id: string }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT user_id, organization_id FROM memberships_read WHERE user_id = ANY($1::uuid[])`,
      [userIds],
    );
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r.organization_id]);
    return out;
  }

  /** The organizations the person belongs to (the scopes their tokens can have). */
  async membershipOrganizations(userId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ organization_id: string }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT organization_id FROM memberships_read WHERE user_id = $1`,
      [userId],
    );
    return rows.map((r) => r.organization_id);
  }

  /** The unread count a token of each of the person's organizations sees (that organization's and none's). */
  unreadByMembership(userId: string): Promise<{ organization_id: string; unread: number }[]> {
    return this.dataSource.query(
      `${tenancyExempt('person-across-organizations')} SELECT m.organization_id, (SELECT count(*) FROM notifications n
         WHERE n.user_id = $1 AND n.in_app AND n.read_at IS NULL
           AND (n.organization_id IS NULL OR n.organization_id = m.organization_id))::int AS unread
       FROM memberships_read m WHERE m.user_id = $1`,
      [userId],
    );
  }

  async markAllRead(userId: string, scope: string | null, category: Category | null, now: Date): Promise<number> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE notifications n SET read_at = $4
       WHERE n.user_id = $1 AND n.in_app AND n.read_at IS NULL AND ${SCOPE('$2')}
         AND ($3::text IS NULL OR n.category = $3)`,
      [userId, scope, category, now],
    );
    return count;
  }

  async remove(userId: string, scope: string | null, id: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM notifications n WHERE n.id = $3 AND n.user_id = $1 AND n.in_app AND ${SCOPE('$2')}`,
      [userId, scope, id],
    );
    return count > 0;
  }

  async preferences(userId: string, tx?: Tx): Promise<PreferencesRow | null> {
    const rows = await db(this.dataSource, tx).query<
      { categories: PreferenceOverrides; quiet_enabled: boolean; quiet_start: string; quiet_end: string }[]
    >(`SELECT categories, quiet_enabled, quiet_start, quiet_end FROM notification_preferences WHERE user_id = $1`, [
      userId,
    ]);
    const r = rows[0];
    return r
      ? { categories: r.categories, quiet: { enabled: r.quiet_enabled, start: r.quiet_start, end: r.quiet_end } }
      : null;
  }

  /** Locks the person's preferences row (created with the defaults first) for a read-modify-write. */
  async lockPreferences(userId: string, now: Date, tx: Tx): Promise<PreferencesRow> {
    await tx.manager.query(
      `INSERT INTO notification_preferences (user_id, updated_at) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING`,
      [userId, now],
    );
    await tx.manager.query(`SELECT 1 FROM notification_preferences WHERE user_id = $1 FOR UPDATE`, [userId]);
    return (await this.preferences(userId, tx))!;
  }

  async savePreferences(userId: string, prefs: PreferencesRow, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE notification_preferences
       SET categories = $2, quiet_enabled = $3, quiet_start = $4, quiet_end = $5, updated_at = $6 WHERE user_id = $1`,
      [userId, JSON.stringify(prefs.categories), prefs.quiet.enabled, prefs.quiet.start, prefs.quiet.end, now],
    );
  }

  async courseTitle(courseId: string, tx?: Tx): Promise<string | null> {
    const rows = await db(this.dataSource, tx).query<{ title: string }[]>(
      `SELECT title FROM courses_read WHERE id = $1`,
      [courseId],
    );
    return rows[0]?.title ?? null;
  }

  async organizations(ids: readonly string[], tx?: Tx): Promise<Map<string, { name: string; locale: Locale }>> {
    if (ids.length === 0) return new Map();
    const rows = await db(this.dataSource, tx).query<{ id: string; name: string; locale: Locale }[]>(
      `SELECT id, name, locale FROM organizations_read WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, { name: r.name, locale: r.locale }]));
  }

  // Fan-out of new_course (extensions-v2 13.1): members of every active organization that sees the course.

  /** The next `limit` distinct member ids (id order, after `after`) of active organizations that see the course. */
  async courseAudienceAfter(courseId: string, after: string | null, limit: number): Promise<string[]> {
    const rows = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT DISTINCT m.user_id FROM memberships_read m
       JOIN organizations_read o ON o.id = m.organization_id AND o.status = 'active'
       JOIN courses_read c ON c.id = $1
       WHERE ${visibleTo('c', 'm.organization_id')}
         AND ($2::uuid IS NULL OR m.user_id > $2)
       ORDER BY m.user_id LIMIT $3`,
      [courseId, after, limit],
    );
    return rows.map((r) => r.user_id);
  }

  /**
   * Inserts one notification per person in one statement, each in the person's language and with in_app per their
   * preferences; returns the rows inserted (none for people who already have it). Erased accounts get none.
   */
  async insertMany(
    userIds: readonly string[],
    n: Omit<NewNotification, 'user_id' | 'title' | 'body' | 'in_app'> & {
      text: Record<Locale, { title: string; body: string }>;
    },
    now: Date,
    tx: Tx,
  ): Promise<NotificationRow[]> {
    return tx.manager.query(
      `INSERT INTO notifications (user_id, organization_id, category, title, body, url, data, source_key, in_app, created_at)
       SELECT u.id, $2, $3,
              CASE u.locale WHEN 'en' THEN $4 ELSE $5 END, CASE u.locale WHEN 'en' THEN $6 ELSE $7 END,
              $8, $9, $10, ${preferenceSql('p', n.category, 'in_app')}, $11
       FROM users_read u LEFT JOIN notification_preferences p ON p.user_id = u.id
       WHERE u.id = ANY($1::uuid[]) AND u.erased_at IS NULL
       ON CONFLICT (source_key, user_id) DO NOTHING
       RETURNING id, user_id, organization_id, category, title, body, url, data, in_app, created_at, read_at`,
      [
        userIds,
        n.organization_id,
        n.category,
        n.text.en.title,
        n.text.es.title,
        n.text.en.body,
        n.text.es.body,
        n.url,
        JSON.stringify(n.data),
        n.source_key,
        now,
      ],
    );
  }

  /** Of these people, those whose push or email of the category is on (the bulk path's follow-up deliveries). */
  async wantingDelivery(userIds: readonly string[], category: Category, tx: Tx): Promise<string[]> {
    if (userIds.length === 0) return [];
    const rows = await tx.manager.query<{ user_id: string }[]>(
      `SELECT p.user_id FROM notification_preferences p
       WHERE p.user_id = ANY($1::uuid[])
         AND (${preferenceSql('p', category, 'push')} OR ${preferenceSql('p', category, 'email')})`,
      [userIds],
    );
    return rows.map((r) => r.user_id);
  }

  /**
   * One page (id order, after `after`) of the people whose local clock time at `at` is in [from, to) and, with
   * `isoWeekday`, whose local day is that weekday (the scheduled categories of 13.1, in each person's zone).
   */
  async localTimeAfter(
    at: Date,
    window: { from: string; to: string; isoWeekday: number | null },
    after: string | null,
    limit: number,
  ): Promise<string[]> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT u.id FROM users_read u
       CROSS JOIN LATERAL (SELECT ($1::timestamptz AT TIME ZONE u.time_zone) AS local) l
       WHERE u.erased_at IS NULL AND ($4::uuid IS NULL OR u.id > $4)
         AND to_char(l.local, 'HH24:MI') >= $2 AND to_char(l.local, 'HH24:MI') < $3
         AND ($5::int IS NULL OR EXTRACT(ISODOW FROM l.local) = $5)
       ORDER BY u.id LIMIT $6`,
      [at, window.from, window.to, after, window.isoWeekday, limit],
    );
    return rows.map((r) => r.id);
  }

  async prune(before: Date, limit: number): Promise<number> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `${tenancyExempt('cross-organization-job')} DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE created_at < $1 LIMIT $2)`,
      [before, limit],
    );
    return count;
  }

  // Web push subscriptions and native devices.

  subscriptionsOf(userId: string, tx?: Tx): Promise<SubscriptionRow[]> {
    return db(this.dataSource, tx).query(
      `SELECT * FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async subscription(id: string): Promise<SubscriptionRow | null> {
    const rows = await this.dataSource.query<SubscriptionRow[]>(`SELECT * FROM push_subscriptions WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Registers (or moves to this person) an endpoint; `created` false when it existed. Keeps at most `max` per person. */
  async upsertSubscription(
    userId: string,
    s: { endpoint: string; p256dh: string; auth: string; expiration_time: number | null },
    max: number,
    now: Date,
    tx: Tx,
  ): Promise<{ row: SubscriptionRow; created: boolean }> {
    const rows = await tx.manager.query<(SubscriptionRow & { created: boolean })[]>(
      `INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, expiration_time, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (endpoint) DO UPDATE SET user_id = EXCLUDED.user_id, p256dh = EXCLUDED.p256dh,
         auth = EXCLUDED.auth, expiration_time = EXCLUDED.expiration_time
       RETURNING *, (xmax = 0) AS created`,
      [userId, s.endpoint, s.p256dh, s.auth, s.expiration_time, now],
    );
    await tx.manager.query(
      `DELETE FROM push_subscriptions WHERE id IN (
         SELECT id FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2)`,
      [userId, max],
    );
    const { created, ...row } = rows[0];
    return { row, created };
  }

  async deleteSubscription(userId: string | null, id: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM push_subscriptions WHERE id = $1 AND ($2::uuid IS NULL OR user_id = $2)`,
      [id, userId],
    );
    return count > 0;
  }

  async subscriptionSucceeded(id: string, now: Date): Promise<void> {
    await this.dataSource.query(`UPDATE push_subscriptions SET last_success_at = $2 WHERE id = $1`, [id, now]);
  }

  devicesOf(userId: string, tx?: Tx): Promise<DeviceRow[]> {
    return db(this.dataSource, tx).query(
      `SELECT id, user_id, platform, token, app_version, created_at, last_success_at FROM push_devices
       WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async device(id: string): Promise<DeviceRow | null> {
    const rows = await this.dataSource.query<DeviceRow[]>(
      `SELECT id, user_id, platform, token, app_version, created_at, last_success_at FROM push_devices WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async upsertDevice(
    userId: string,
    d: { platform: 'ios' | 'android'; token: string; token_hash: string; app_version: string | null },
    max: number,
    now: Date,
    tx: Tx,
  ): Promise<{ row: DeviceRow; created: boolean }> {
    const rows = await tx.manager.query<(DeviceRow & { created: boolean })[]>(
      `INSERT INTO push_devices (user_id, platform, token, token_hash, app_version, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (token_hash) DO UPDATE SET user_id = EXCLUDED.user_id, platform = EXCLUDED.platform,
         app_version = EXCLUDED.app_version
       RETURNING id, user_id, platform, token, app_version, created_at, last_success_at, (xmax = 0) AS created`,
      [userId, d.platform, d.token, d.token_hash, d.app_version, now],
    );
    await tx.manager.query(
      `DELETE FROM push_devices WHERE id IN (
         SELECT id FROM push_devices WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2)`,
      [userId, max],
    );
    const { created, ...row } = rows[0];
    return { row, created };
  }

  async deleteDevice(userId: string | null, id: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM push_devices WHERE id = $1 AND ($2::uuid IS NULL OR user_id = $2)`,
      [id, userId],
    );
    return count > 0;
  }

  async deviceSucceeded(id: string, now: Date): Promise<void> {
    await this.dataSource.query(`UPDATE push_devices SET last_success_at = $2 WHERE id = $1`, [id, now]);
  }
}
