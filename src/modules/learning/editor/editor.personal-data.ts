import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * Courses of the shared catalog the person created (`learning.json`). The catalog keeps them; on erasure they
 * stop naming their author (the foreign key's ON DELETE SET NULL). Like a repository, this handler only talks to
 * the database.
 */
@Injectable()
@PersonalData({ area: 'learning', key: 'authored_courses', tables: ['courses'] })
export class AuthoredCoursesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, slug, title, status, published_at, created_at FROM courses WHERE created_by = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE courses SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
