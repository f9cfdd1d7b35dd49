import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/*
 * The progress area's personal data (`learning.json`): enrollments, lesson completions and quiz submissions, all
 * deleted on erasure (extensions-v2 17.4). Completions and submissions go before the enrollments they hang off.
 * Like a repository, these handlers only talk to the database.
 */

/**
 * Completions and submissions belong to enrollments (foreign key): looking in the organizations the person is
 * enrolled in (`enrollments_user_idx`) lets their organization-led keys serve the look-up.
 */
const OF_PERSON = `organization_id IN (SELECT organization_id FROM enrollments WHERE user_id = $1) AND user_id = $1`;

@Injectable()
@PersonalData({ area: 'learning', key: 'enrollments', tables: ['enrollments'], eraseOrder: 110 })
export class EnrollmentsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT organization_id, course_id, status, enrolled_at, completed_at, last_activity_at FROM enrollments
       WHERE user_id = $1 ORDER BY enrolled_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM enrollments WHERE user_id = $1`, [userId]);
  }
}

@Injectable()
@PersonalData({ area: 'learning', key: 'lesson_completions', tables: ['lesson_completions'] })
export class LessonCompletionsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT organization_id, course_id, lesson_id, completed_at FROM lesson_completions
       WHERE ${OF_PERSON}
       ORDER BY completed_at, lesson_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM lesson_completions WHERE ${OF_PERSON}`, [userId]);
  }
}

@Injectable()
@PersonalData({ area: 'learning', key: 'quiz_submissions', tables: ['quiz_submissions'] })
export class QuizSubmissionsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, course_id, lesson_id, quiz_id, score, passed, answers, submitted_at
       FROM quiz_submissions WHERE ${OF_PERSON}
       ORDER BY submitted_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM quiz_submissions WHERE ${OF_PERSON}`, [userId]);
  }
}
