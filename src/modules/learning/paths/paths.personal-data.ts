import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/*
 * The paths area's personal data: capstone submissions and program completions (`learning.json`) and the paths
 * a person authored (program badges are the gamification area's). Like a repository, these handlers only talk to
 * the database.
 */

/**
 * The person's capstone submissions, deleted on erasure (extensions-v2 17.4). Submissions they graded are the
 * learners' data: they are neither exported here nor deleted, and stop naming the grader (the foreign key's ON
 * DELETE SET NULL).
 */
@Injectable()
@PersonalData({ area: 'learning', key: 'capstone_submissions', tables: ['capstone_submissions'] })
export class CapstoneSubmissionsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, path_id, content_md, url, status, score, feedback, graded_at, submitted_at
       FROM capstone_submissions WHERE user_id = $1 ORDER BY submitted_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM capstone_submissions WHERE user_id = $1`, [userId]);
    await tx.manager.query(`UPDATE capstone_submissions SET graded_by = NULL WHERE graded_by = $1`, [userId]);
  }
}

@Injectable()
@PersonalData({ area: 'learning', key: 'program_completions', tables: ['program_completions'] })
export class ProgramCompletionsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT organization_id, path_id, completed_at FROM program_completions WHERE user_id = $1
       ORDER BY completed_at, path_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM program_completions WHERE user_id = $1`, [userId]);
  }
}

/**
 * Paths and programs of the shared catalog the person created. The catalog keeps them; on erasure they stop
 * naming their author (the foreign key's ON DELETE SET NULL).
 */
@Injectable()
@PersonalData({ area: 'learning', key: 'authored_paths', tables: ['learning_paths'] })
export class AuthoredPathsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, slug, title, kind, status, created_at FROM learning_paths WHERE created_by = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE learning_paths SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
