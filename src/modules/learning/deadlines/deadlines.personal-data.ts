import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * The person's calendar feed (`account.json`): that they have one, when it was made and last read; never the
 * token's hash. Deleted on erasure (the address stops working).
 */
@Injectable()
@PersonalData({ area: 'account', key: 'calendar_feed', tables: ['calendar_feeds'] })
export class CalendarFeedPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(`SELECT created_at, last_fetched_at FROM calendar_feeds WHERE user_id = $1`, [userId]);
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM calendar_feeds WHERE user_id = $1`, [userId]);
  }
}

/**
 * Deadlines the person set as a teacher or admin (`organizations.json`): the cohort's schedule, so on erasure they
 * stay and lose their author.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'cohort_deadlines_set', tables: ['cohort_deadlines'] })
export class CohortDeadlinesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, cohort_id, course_id, title, due_at, created_at FROM cohort_deadlines
       WHERE created_by = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE cohort_deadlines SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
