import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/** A person's LTI launches (kept 90 days) and the results tools reported for them. */
@Injectable()
@PersonalData({ area: 'lti', key: 'lti_activity', tables: ['lti_launches', 'lti_results'] })
export class LtiActivityPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const launches: ExportedRow[] = await db.query(
      `SELECT 'launch' AS kind, tool_id, organization_id, lesson_id, message_type, at FROM lti_launches
       WHERE user_id = $1 ORDER BY at, id`,
      [userId],
    );
    const results: ExportedRow[] = await db.query(
      `SELECT 'result' AS kind, i.tool_id, r.organization_id, i.lesson_id, i.label AS line_item_label, r.score_given,
              r.score_maximum, r.comment, r.activity_progress, r.grading_progress, r.timestamp, r.updated_at
       FROM lti_results r JOIN lti_line_items i ON i.id = r.line_item_id WHERE r.user_id = $1
       ORDER BY r.updated_at, r.line_item_id`,
      [userId],
    );
    return [...launches, ...results];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM lti_results WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM lti_launches WHERE user_id = $1`, [userId]);
  }
}

/** Tools and dynamic registrations a platform admin created: the records stay, they stop naming their creator. */
@Injectable()
@PersonalData({ area: 'lti', key: 'lti_tools_created', tables: ['lti_tools', 'lti_registrations'] })
export class LtiToolsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT 'tool' AS kind, id, name, created_at FROM lti_tools WHERE created_by = $1
       UNION ALL SELECT 'registration', id, initiation_url, created_at FROM lti_registrations WHERE created_by = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE lti_tools SET created_by = NULL WHERE created_by = $1`, [userId]);
    await tx.manager.query(`UPDATE lti_registrations SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
