import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { UsersService } from '@/modules/identity/users';

/*
 * Member imports (`organizations.json`): the imports a person started, and the rows of any import that named
 * them. The imports are the organization's records and stay. Like a repository, these handlers only talk to the
 * database.
 */

/** Imports the person started: on erasure they stop naming who (the foreign key's ON DELETE SET NULL). */
@Injectable()
@PersonalData({ area: 'organizations', key: 'member_imports', tables: ['member_imports'] })
export class MemberImportsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, status, total, created_at, started_at, finished_at FROM member_imports
       WHERE created_by = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE member_imports SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}

/**
 * Rows of imports that named the person's address (as typed in the file, so compared trimmed and lower-cased). On
 * erasure the row keeps its number and outcome (the import's report stays whole) without the address and name.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'imported_rows', tables: ['member_import_rows'] })
export class ImportedRowsPersonalData implements PersonalDataHandler {
  constructor(private readonly users: UsersService) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const email = (await this.users.findById(userId, db))?.email ?? null;
    return db.query(
      `SELECT i.organization_id, r.import_id, r.row_number, r.email, r.name, r.role, r.cohort, r.outcome, r.reason
       FROM member_import_rows r JOIN member_imports i ON i.id = r.import_id
       WHERE lower(btrim(r.email)) = $1 ORDER BY i.created_at, r.import_id, r.row_number`,
      [email],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    const email = (await this.users.findById(userId, tx))?.email ?? null;
    await tx.manager.query(`UPDATE member_import_rows SET email = NULL, name = NULL WHERE lower(btrim(email)) = $1`, [
      email,
    ]);
  }
}
