import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * What the organizations' directories say about the person (`organizations.json`, section `directory`): the
 * userName, externalId, names and enterprise attributes each SCIM directory keeps per membership. Erased with the
 * person (the membership goes too, by its own handler).
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'directory', tables: ['scim_members'], eraseOrder: 90 })
export class ScimMembersPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT organization_id, user_name, external_id, given_name, family_name, display_name, directory,
              created_at, updated_at
       FROM scim_members WHERE user_id = $1 ORDER BY organization_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM scim_members WHERE user_id = $1`, [userId]);
  }
}

/** SCIM tokens name the admin who created them: kept (they belong to the organization), the name is cleared. */
@Injectable()
@PersonalData({ area: 'organizations', key: 'scim_tokens_created', tables: ['scim_tokens'] })
export class ScimTokensPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, description, created_at, revoked_at FROM scim_tokens WHERE created_by = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE scim_tokens SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
