import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * Passkeys (extensions-v3 3): exported without their public keys or credential ids (what a person recognises:
 * name, kind, dates), and deleted with the account together with their pending challenges.
 */
@Injectable()
@PersonalData({ area: 'account', key: 'passkeys', tables: ['passkeys', 'passkey_challenges'] })
export class PasskeysPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, name, device_type, backed_up, transports, created_at, last_used_at, disabled_at
       FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM passkey_challenges WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM passkeys WHERE user_id = $1`, [userId]);
  }
}
