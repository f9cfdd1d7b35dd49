import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type ExportedRow, PersonalData, type PersonalDataHandler } from '@/core/privacy/personal-data';

/**
 * Audit entries whose actor is the person (`audit.json`), without the ids of other people they concern. Kept as they are on erasure (extensions-v2 17.4): ids are
 * pseudonyms and entries hold no personal data by construction (the AuditService refuses personal keys). The
 * address fingerprint is a keyed hash and is left out of the export. Like a repository, this handler only talks to
 * the database.
 */
/** Rows per query of the export. */
const EXPORT_BATCH = 2_000;

@Injectable()
@PersonalData({ area: 'audit', key: 'entries', tables: ['audit_log'] })
export class AuditEntriesPersonalData implements PersonalDataHandler {
  /**
   * Streamed in keyset batches over `audit_log_actor_idx` (actor, created_at, id): an active person's log can be
   * long, and the export holds one batch at a time.
   */
  async *export(userId: string, db: EntityManager): AsyncIterable<ExportedRow> {
    // The cursor keeps the time as PostgreSQL's text (microseconds; a JS Date would drop them).
    let after: { at: string; id: string } | null = null;
    for (;;) {
      // Another person the entry is about (a member whose role was changed) appears without id.
      const rows: (ExportedRow & { cursor_at: string; id: string })[] = await db.query(
        `SELECT id, action, organization_id, target_type,
                CASE WHEN target_type = 'user' AND target_id <> $1::text THEN NULL ELSE target_id END AS target_id,
                CASE WHEN metadata->>'user_id' <> $1::text THEN metadata - 'user_id' ELSE metadata END AS metadata,
                created_at, created_at::text AS cursor_at
         FROM audit_log_read
         WHERE actor_id = $1::uuid AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
         ORDER BY created_at, id LIMIT $4`,
        [userId, after?.at ?? null, after?.id ?? null, EXPORT_BATCH],
      );
      for (const { cursor_at: _cursor, ...row } of rows) yield row;
      if (rows.length < EXPORT_BATCH) return;
      const last = rows[rows.length - 1];
      after = { at: last.cursor_at, id: last.id };
    }
  }

  /** The audit log is kept as is. */
  async erase(): Promise<void> {}
}
