import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/*
 * The external sign-in area's personal data (`account.json`): the identities linked at Google, Microsoft or an
 * institution, and the short-lived sign-in starts a person opened. Both are deleted on erasure. Like a repository,
 * these handlers only talk to the database.
 */

@Injectable()
@PersonalData({ area: 'account', key: 'linked_identities', tables: ['external_identities'] })
export class LinkedIdentitiesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT provider, issuer, subject, connection_id, created_at, last_used_at FROM external_identities
       WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM external_identities WHERE user_id = $1`, [userId]);
  }
}

/** Sign-in starts a signed-in person opened (an SSO connection test); never the nonce or the PKCE verifier. */
@Injectable()
@PersonalData({ area: 'sessions', key: 'sign_in_starts', tables: ['sign_in_states'] })
export class SignInStartsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT kind, provider, connection_id, test, created_at, expires_at, used_at FROM sign_in_states
       WHERE created_by = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM sign_in_states WHERE created_by = $1`, [userId]);
  }
}
