import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
  streamRows,
} from '@/core/privacy/personal-data';
import { UsersRepository } from './users.repository';

/*
 * The users area's personal data (extensions-v2 17.3, 17.4): the account (`account.json`) and the consents
 * (`consents.json`). Like a repository, these handlers only talk to the database.
 */

/** The account. Its eraser runs last: the row becomes the tombstone the other areas' kept rows refer to. */
@Injectable()
@PersonalData({ area: 'account', key: 'profile', tables: ['users'], eraseOrder: 1000 })
export class AccountPersonalData implements PersonalDataHandler {
  constructor(private readonly users: UsersRepository) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    // Never the two-factor secret or its last step, nor the token version.
    return db.query(
      `SELECT id, email, username, name, headline, bio, location, avatar_url, avatar, locale, time_zone,
              public_profile, platform_roles, age_bracket, two_factor_enabled_at IS NOT NULL AS two_factor_enabled,
              onboarding_completed_at, first_steps, first_steps_hidden, last_organization_id, created_at, updated_at
       FROM users WHERE id = $1`,
      [userId],
    );
  }

  async erase({ userId, now, tx }: EraseContext): Promise<void> {
    await this.users.tombstone(userId, now, tx);
  }
}

/** Consents given (deleted on erasure). */
@Injectable()
@PersonalData({ area: 'consents', key: 'consents', tables: ['consents'] })
export class ConsentsPersonalData implements PersonalDataHandler {
  export(userId: string, db: EntityManager): AsyncIterable<ExportedRow> {
    // The address fingerprint is a keyed hash: left out.
    return streamRows(
      db,
      `SELECT kind, terms_version AS version, granted, granted_at AS recorded_at FROM consents
       WHERE user_id = $1 ORDER BY granted_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM consents WHERE user_id = $1`, [userId]);
  }
}
