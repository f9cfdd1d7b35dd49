import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/** The person's inbox (`notifications.json`), deleted on erasure (extensions-v2 17.4). */
@Injectable()
@PersonalData({ area: 'notifications', key: 'notifications', tables: ['notifications'] })
export class NotificationsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, category, organization_id, title, body, url, data, in_app, created_at, read_at FROM notifications
       WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM notifications WHERE user_id = $1`, [userId]);
  }
}

/** Preferences and quiet hours (`notifications.json`), deleted on erasure. */
@Injectable()
@PersonalData({ area: 'notifications', key: 'preferences', tables: ['notification_preferences'] })
export class NotificationPreferencesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT categories, quiet_enabled, quiet_start, quiet_end, updated_at FROM notification_preferences
       WHERE user_id = $1`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM notification_preferences WHERE user_id = $1`, [userId]);
  }
}

/**
 * Web push subscriptions and native devices (`notifications.json`): the export names each by its push service's
 * origin and platform only (endpoints and tokens are bearer capabilities); deleted on erasure.
 */
@Injectable()
@PersonalData({ area: 'notifications', key: 'push_targets', tables: ['push_subscriptions', 'push_devices'] })
export class PushTargetsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT 'web' AS kind, id, substring(endpoint from '^[a-z]+://[^/]+') AS origin, NULL AS platform,
              created_at, last_success_at FROM push_subscriptions WHERE user_id = $1
       UNION ALL
       SELECT 'native', id, NULL, platform, created_at, last_success_at FROM push_devices WHERE user_id = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM push_subscriptions WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM push_devices WHERE user_id = $1`, [userId]);
  }
}
