import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * Reports the person requested (`organizations.json`): the request, not the file (the file holds other people's
 * data and belongs to the organization). On erasure the record stays for the organization and loses its
 * requester (`requested_by` NULL, as its foreign key says).
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'reports_requested', tables: ['reports'] })
export class ReportsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, type, format, lang, filters, status, created_at, finished_at FROM reports
       WHERE requested_by = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE reports SET requested_by = NULL WHERE requested_by = $1`, [userId]);
  }
}
