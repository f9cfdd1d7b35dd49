import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type ExportedRow, PersonalData, type PersonalDataHandler } from '@/core/privacy/personal-data';

/**
 * Audit entries whose actor is the person (`audit.json`), without the ids of other people they concern. Kept as they are on erasure (extensions-v2 17.4): ids are
 * pseudonyms and entries hold no personal data by construction (the AuditService refuses personal keys). The
 * address fingerprint is a keyed hash and is left out of the export. Like a repository, this handler only talks to
 * the database.
 */
@Injectable()
@PersonalData({ area: 'audit', key: 'entries', tables: ['audit_log'] })
export class AuditEntriesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    // Another person the entry is about (a member whose role was changed) appears without id.
    return db.query(
      `SELECT id, action, organization_id, target_type,
              CASE WHEN target_type = 'user' AND target_id <> $1::text THEN NULL ELSE target_id END AS target_id,
              CASE WHEN metadata->>'user_id' <> $1::text THEN metadata - 'user_id' ELSE metadata END AS metadata,
              created_at
       FROM audit_log WHERE actor_id = $1::uuid ORDER BY created_at, id`,
      [userId],
    );
  }

  /** The audit log is kept as is. */
  async erase(): Promise<void> {}
}
