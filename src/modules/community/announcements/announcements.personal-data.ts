import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/** Which announcements the person dismissed (`notifications.json`), deleted on erasure (extensions-v2 17.4). */
@Injectable()
@PersonalData({ area: 'notifications', key: 'announcement_dismissals', tables: ['announcement_dismissals'] })
export class AnnouncementDismissalsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT announcement_id, organization_id, dismissed_at FROM announcement_dismissals
       WHERE user_id = $1 ORDER BY dismissed_at, announcement_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM announcement_dismissals WHERE user_id = $1`, [userId]);
  }
}

/**
 * Announcements the person wrote as an administrator (`organizations.json`). On erasure they stay (they are the
 * platform's or the organization's communication, read by others) and lose their author.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'announcements_authored', tables: ['announcements'] })
export class AnnouncementsAuthoredPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, translations, severity, starts_at, ends_at, created_at FROM announcements
       WHERE created_by = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE announcements SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
