import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
  streamRows,
} from '@/core/privacy/personal-data';
import { UsersService } from '@/modules/identity/users';
import { SessionsRepository } from './sessions.repository';

/*
 * The auth area's personal data (extensions-v2 17.3, 17.4): sessions, email codes, two-factor challenges and
 * recovery codes, all deleted on erasure. Exports never carry a hash, a code or a token. Like a repository, these
 * handlers only talk to the database.
 */

/** The step-up codes' subject is a session: the sessions of the person and those they opened as someone else. */
const SESSIONS_OF = `SELECT id::text FROM sessions WHERE user_id = $1::uuid OR impersonator_id = $1::uuid`;

/** Email codes sent to the person: sign-in (by address), email change (by account), step-up (by session). */
@Injectable()
@PersonalData({ area: 'sessions', key: 'email_codes', tables: ['email_codes'], eraseOrder: 10 })
export class EmailCodesPersonalData implements PersonalDataHandler {
  constructor(private readonly users: UsersService) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const email = (await this.users.findById(userId, db))?.email;
    return db.query(
      `SELECT purpose, CASE WHEN purpose = 'email_change' THEN metadata->>'email' END AS new_email,
              attempts, created_at, expires_at, used_at
       FROM email_codes
       WHERE (purpose = 'sign_in' AND subject = $2) OR (purpose = 'email_change' AND subject = $1::text)
          OR (purpose = 'step_up' AND subject IN (${SESSIONS_OF}))
       ORDER BY created_at, id`,
      [userId, email ?? null],
    );
  }

  /** Before the sessions go (step-up codes are found through them) and before the address does. */
  async erase({ userId, tx }: EraseContext): Promise<void> {
    const user = await this.users.findById(userId, tx);
    await tx.manager.query(
      `DELETE FROM email_codes
       WHERE (purpose = 'sign_in' AND subject = $2) OR (purpose = 'email_change' AND subject = $1::text)
          OR (purpose = 'step_up' AND subject IN (${SESSIONS_OF}))`,
      [userId, user?.email ?? null],
    );
  }
}

/** Pending and past two-factor sign-in challenges. */
@Injectable()
@PersonalData({ area: 'sessions', key: 'challenges', tables: ['auth_challenges'] })
export class ChallengesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT kind, attempts, created_at, expires_at, used_at FROM auth_challenges WHERE user_id = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM auth_challenges WHERE user_id = $1`, [userId]);
  }
}

/**
 * Browser sessions (their refresh tokens go with them), including those staff opened as the person
 * (`impersonated`), and those the person opened as someone else (`kind: impersonation`, without naming who).
 */
@Injectable()
@PersonalData({ area: 'sessions', key: 'sessions', tables: ['sessions', 'refresh_tokens'], eraseOrder: 20 })
export class SessionsPersonalData implements PersonalDataHandler {
  constructor(private readonly sessions: SessionsRepository) {}

  export(userId: string, db: EntityManager): AsyncIterable<ExportedRow> {
    return streamRows(
      db,
      `SELECT id, 'own' AS kind, device, created_at, last_seen_at, expires_at, revoked_at, revoked_reason,
              impersonator_id IS NOT NULL AS impersonated
       FROM sessions WHERE user_id = $1
       UNION ALL
       SELECT id, 'impersonation', device, created_at, last_seen_at, impersonation_expires_at, revoked_at,
              revoked_reason, false
       FROM sessions WHERE impersonator_id = $1
       ORDER BY created_at, id`,
      [userId],
    );
  }

  /** Revoked first (so every instance drops its cached copy), then deleted with their refresh tokens. */
  async erase({ userId, now, tx }: EraseContext): Promise<void> {
    await this.sessions.revokeAllExcept(userId, null, 'account_erased', now, tx);
    const opened = await tx.manager.query<{ id: string; user_id: string }[]>(
      `SELECT id, user_id FROM sessions WHERE impersonator_id = $1 AND revoked_at IS NULL`,
      [userId],
    );
    for (const s of opened) await this.sessions.revoke(s.id, s.user_id, 'account_erased', now, tx);
    await tx.manager.query(`DELETE FROM sessions WHERE user_id = $1 OR impersonator_id = $1`, [userId]);
  }
}

/** Two-factor recovery codes: only whether each was used, and when (never the codes or their hashes). */
@Injectable()
@PersonalData({ area: 'account', key: 'recovery_codes', tables: ['recovery_codes'] })
export class RecoveryCodesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(`SELECT created_at, used_at FROM recovery_codes WHERE user_id = $1 ORDER BY created_at, id`, [
      userId,
    ]);
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId]);
  }
}
