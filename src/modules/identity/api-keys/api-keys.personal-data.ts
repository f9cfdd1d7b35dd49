import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { ApiKeysRepository } from './api-keys.repository';

/**
 * Personal access tokens (`tokens.json`, extensions-v2 17.4: revoked, then deleted). The export names each token
 * without its value, its fingerprint or its prefix. Like a repository, this handler only talks to the database.
 */
@Injectable()
@PersonalData({ area: 'tokens', key: 'personal_tokens', tables: ['api_keys'] })
export class ApiKeysPersonalData implements PersonalDataHandler {
  constructor(private readonly keys: ApiKeysRepository) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, name, access, created_at, expires_at, last_used_at, revoked_at
       FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  /** Revoked through the repository (every instance drops its cached copy at once), then deleted. */
  async erase({ userId, now, tx }: EraseContext): Promise<void> {
    const orgs = await tx.manager.query<{ organization_id: string }[]>(
      `SELECT DISTINCT organization_id FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`,
      [userId],
    );
    for (const { organization_id } of orgs) await this.keys.revokeAllFor(organization_id, userId, now, tx);
    await tx.manager.query(`DELETE FROM api_keys WHERE user_id = $1`, [userId]);
  }
}
