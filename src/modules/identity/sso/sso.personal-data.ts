import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * SSO connections a person set up for an organization (`organizations.json`). The connection is the
 * organization's and stays; on erasure it stops naming its creator (what the foreign key's ON DELETE SET NULL
 * would do). Never the client secret. Like a repository, this handler only talks to the database.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'sso_connections_created', tables: ['sso_connections'] })
export class SsoConnectionsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, name, issuer, created_at FROM sso_connections WHERE created_by = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE sso_connections SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
