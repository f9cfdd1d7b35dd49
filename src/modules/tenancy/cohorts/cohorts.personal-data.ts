import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * Cohort places (`organizations.json`), deleted on erasure (extensions-v2 17.4). Like a repository, this handler
 * only talks to the database.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'cohort_places', tables: ['cohort_members'] })
export class CohortPlacesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT cm.organization_id, cm.cohort_id, c.name AS cohort_name, cm.role, cm.added_at
       FROM cohort_members cm JOIN cohorts c ON c.id = cm.cohort_id
       WHERE cm.user_id = $1 ORDER BY cm.added_at, cm.cohort_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM cohort_members WHERE user_id = $1`, [userId]);
  }
}
