import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import { CryptoService } from '@/core/crypto/crypto.service';
import type { Tx } from '@/core/database/transaction';

export interface AuditEntry {
  /** Dotted action name, e.g. `certificate.revoked`. */
  action: string;
  actorId: string | null;
  organizationId: string | null;
  targetType?: string | null;
  targetId?: string | null;
  /** The client address; only its keyed hash is stored. */
  ip?: string | null;
  /** Ids, counts, enums and a stated reason; never a name, an email or other free text about a person. */
  metadata?: Record<string, string | number | boolean | null | string[]>;
}

/** Keys whose values would be personal data; refused so no caller stores them by mistake. */
const PERSONAL_KEYS = /^(e-?mail|name|full_?name|first_?name|last_?name|ip|address|phone|username)$/i;

/** Writes the audit log. Every area records its actions through here, inside its own transaction. */
@Injectable()
export class AuditService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly crypto: CryptoService,
  ) {}

  async record(entry: AuditEntry, tx?: Tx): Promise<void> {
    await this.recordMany([entry], tx);
  }

  /** Many entries with one statement (a bulk operation's entries, each the same as `record` would write). */
  async recordMany(entries: readonly AuditEntry[], tx?: Tx): Promise<void> {
    if (entries.length === 0) return;
    for (const entry of entries) refusePersonalKeys(entry);
    const manager = db(this.dataSource, tx);
    if (entries.length === 1) {
      const [entry] = entries;
      await manager.query(
        `INSERT INTO audit_log (action, actor_id, organization_id, target_type, target_id, ip_fingerprint, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          entry.action,
          entry.actorId,
          entry.organizationId,
          entry.targetType ?? null,
          entry.targetId ?? null,
          entry.ip ? this.ipFingerprint(entry.ip) : null,
          JSON.stringify(entry.metadata ?? {}),
        ],
      );
      return;
    }
    await manager.query(
      `INSERT INTO audit_log (action, actor_id, organization_id, target_type, target_id, ip_fingerprint, metadata)
       SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::jsonb[])`,
      [
        entries.map((e) => e.action),
        entries.map((e) => e.actorId),
        entries.map((e) => e.organizationId),
        entries.map((e) => e.targetType ?? null),
        entries.map((e) => e.targetId ?? null),
        entries.map((e) => (e.ip ? this.ipFingerprint(e.ip) : null)),
        entries.map((e) => JSON.stringify(e.metadata ?? {})),
      ],
    );
  }

  /**
   * The row `record` writes, as a data-modifying CTE (`<name> AS (INSERT INTO audit_log ...)`) for the caller's own
   * statement in its transaction, its parameters numbered from `$<firstParam>`: the entry goes in with the
   * caller's write, in the same round trip (PostgreSQL runs a data-modifying CTE whether or not it is read).
   */
  insertCte(name: string, entry: AuditEntry, firstParam: number): { sql: string; params: unknown[] } {
    refusePersonalKeys(entry);
    const p = (i: number): string => `$${firstParam + i}`;
    return {
      sql: `${name} AS (
        INSERT INTO audit_log (action, actor_id, organization_id, target_type, target_id, ip_fingerprint, metadata)
        VALUES (${p(0)}::text, ${p(1)}::uuid, ${p(2)}::uuid, ${p(3)}::text, ${p(4)}::text, ${p(5)}::text, ${p(6)}::jsonb))`,
      params: [
        entry.action,
        entry.actorId,
        entry.organizationId,
        entry.targetType ?? null,
        entry.targetId ?? null,
        entry.ip ? this.ipFingerprint(entry.ip) : null,
        JSON.stringify(entry.metadata ?? {}),
      ],
    };
  }

  /** Keyed hash of a client address: lets an admin see that two actions came from one place, never where. */
  ipFingerprint(ip: string): string {
    return this.crypto.keyedHash('audit-ip', ip).slice(0, 32);
  }
}

function refusePersonalKeys(entry: AuditEntry): void {
  for (const key of Object.keys(entry.metadata ?? {})) {
    if (PERSONAL_KEYS.test(key)) throw new Error(`Audit metadata must not hold personal data (key "${key}")`);
  }
}
