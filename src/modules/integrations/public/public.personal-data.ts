import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * Contact and demo requests sent from the account's address (`public.json`): found by the email, since forms are
 * public and carry no account. Deleted on erasure (17.4).
 */
@Injectable()
@PersonalData({ area: 'public', key: 'contact_requests', tables: ['contact_requests'] })
export class ContactRequestsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT r.id, r.kind, r.name, r.email, r.topic, r.organization_name, r.role, r.organization_size, r.country,
         r.message, r.locale, r.status, r.created_at
       FROM contact_requests r JOIN users_read u ON lower(r.email) = u.email WHERE u.id = $1 ORDER BY r.created_at, r.id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(
      `DELETE FROM contact_requests r USING users_read u WHERE u.id = $1 AND lower(r.email) = u.email`,
      [userId],
    );
  }
}
