import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { OrganizationsService } from './organizations.service';

/*
 * The organizations area's personal data (`organizations.json`): memberships, and the organizations a person
 * created. Like a repository, these handlers only talk to the database (through the area's own service where a
 * change must also reach the caches and publish its event).
 */

/**
 * Memberships, deleted on erasure (extensions-v2 17.4) after the areas whose rows hang off them: each ends
 * through `removeMember`, so the membership cache of every instance drops it and `member.left` is published
 * (actor null: the service erased it).
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'memberships', tables: ['memberships'], eraseOrder: 500 })
export class MembershipsPersonalData implements PersonalDataHandler {
  constructor(private readonly organizations: OrganizationsService) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT m.organization_id, o.name AS organization_name, m.role, m.joined_at
       FROM memberships m JOIN organizations o ON o.id = m.organization_id
       WHERE m.user_id = $1 ORDER BY m.joined_at, m.organization_id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    const rows = await tx.manager.query<{ organization_id: string }[]>(
      `SELECT organization_id FROM memberships WHERE user_id = $1 ORDER BY organization_id`,
      [userId],
    );
    for (const { organization_id } of rows) {
      await this.organizations.removeMember(organization_id, userId, null, tx);
    }
  }
}

/**
 * Organizations the person created. The organization is its members' and stays; on erasure it stops naming its
 * creator (what the foreign key's ON DELETE SET NULL would do).
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'created_organizations', tables: ['organizations'] })
export class CreatedOrganizationsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(`SELECT id, name, slug, created_at FROM organizations WHERE created_by = $1 ORDER BY created_at`, [
      userId,
    ]);
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE organizations SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
