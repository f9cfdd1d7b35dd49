import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/** A person's notes (extensions-v2 17.4: deleted on erasure). */
@Injectable()
@PersonalData({ area: 'notes', key: 'notes', tables: ['lesson_notes'] })
export class NotesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query<ExportedRow[]>(
      `SELECT organization_id, course_id, lesson_id, content_md, version, created_at, updated_at
       FROM lesson_notes WHERE user_id = $1 ORDER BY organization_id, created_at`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM lesson_notes WHERE user_id = $1`, [userId]);
  }
}
