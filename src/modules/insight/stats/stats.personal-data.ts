import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/** The person's hourly learning-activity counts (`learning.json`), deleted on erasure (derived data). */
@Injectable()
@PersonalData({ area: 'learning', key: 'activity_hourly', tables: ['learning_activity_hourly'] })
export class LearningActivityPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT organization_id, hour, lessons_completed, quizzes_submitted, quizzes_passed, enrollments, completions,
         exams_submitted, reviews
       FROM learning_activity_hourly WHERE user_id = $1 ORDER BY hour, organization_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM learning_activity_hourly WHERE user_id = $1`, [userId]);
  }
}
