import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * The person's course ratings and their comments (`learning.json`), deleted on erasure like the other things a
 * person wrote for others to read (extensions-v2 17.4). Like a repository, this handler only talks to the
 * database.
 */
@Injectable()
@PersonalData({ area: 'learning', key: 'course_ratings', tables: ['course_ratings'] })
export class CourseRatingsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT course_id, organization_id, stars, comment, created_at, updated_at FROM course_ratings
       WHERE user_id = $1 ORDER BY created_at, course_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM course_ratings WHERE user_id = $1`, [userId]);
  }
}
