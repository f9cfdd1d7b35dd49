import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { EmailCodeService } from '@/modules/identity/auth';
import { UsersService } from '@/modules/identity/users';

/**
 * Invitations (`organizations.json`): those addressed to the person or accepted by them (`received`), and those
 * they sent (`sent`, without the invitee's address: that is someone else's data). On erasure the received ones go
 * with their email codes, and the sent ones stop naming the inviter (the foreign key's ON DELETE SET NULL). Like a
 * repository, this handler only talks to the database.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'invitations', tables: ['invitations'] })
export class InvitationsPersonalData implements PersonalDataHandler {
  constructor(
    private readonly users: UsersService,
    private readonly codes: EmailCodeService,
  ) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const email = (await this.users.findById(userId, db))?.email ?? null;
    return db.query(
      `WITH received AS (SELECT id FROM invitations WHERE email = $2 OR accepted_by = $1)
       SELECT id, CASE WHEN id IN (SELECT id FROM received) THEN 'received' ELSE 'sent' END AS direction,
              organization_id, role, cohort_id, status, expires_at, accepted_at, revoked_at, created_at
       FROM invitations WHERE id IN (SELECT id FROM received) OR invited_by = $1
       ORDER BY created_at, id`,
      [userId, email],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    const email = (await this.users.findById(userId, tx))?.email ?? null;
    const received = await tx.manager.query<{ id: string }[]>(
      `SELECT id FROM invitations WHERE email = $2 OR accepted_by = $1`,
      [userId, email],
    );
    const ids = received.map((r) => r.id);
    await this.codes.discard('invitation', ids, tx);
    await tx.manager.query(`DELETE FROM invitations WHERE id = ANY($1::uuid[])`, [ids]);
    await tx.manager.query(`UPDATE invitations SET invited_by = NULL WHERE invited_by = $1`, [userId]);
  }
}
