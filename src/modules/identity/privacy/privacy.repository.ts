import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { ConsentKind, ExportStatus } from './dto/privacy.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ConsentRow {
  kind: ConsentKind;
  granted: boolean;
  version: string;
  recorded_at: Date;
}

export interface ExportRow {
  id: string;
  user_id: string;
  status: ExportStatus;
  file_key: string | null;
  size_bytes: string | null;
  created_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
}

export interface ErasureRow {
  id: string;
  user_id: string;
  status: 'scheduled' | 'running' | 'completed' | 'cancelled';
  keep_certificate_names: boolean;
  requested_at: Date;
  scheduled_for: Date;
  reminded_at: Date | null;
  started_at: Date | null;
  lease_until: Date | null;
  completed_at: Date | null;
  former_email: string | null;
  former_locale: string | null;
  steps_done: string[];
}

export interface GuardianRequestRow {
  id: string;
  user_id: string;
  guardian_email: string;
  guardian_name: string | null;
  status: 'pending' | 'granted' | 'denied' | 'revoked' | 'replaced';
  expires_at: Date;
  revoke_expires_at: Date | null;
  requested_at: Date;
  decided_at: Date | null;
  revoked_at: Date | null;
}

export interface AttestationRow {
  organization_id: string;
  user_id: string;
  attested_at: Date;
}

const EXPORT_COLUMNS = 'id, user_id, status, file_key, size_bytes, created_at, ready_at, expires_at';
const GUARDIAN_COLUMNS =
  'id, user_id, guardian_email, guardian_name, status, expires_at, revoke_expires_at, requested_at, decided_at, revoked_at';

/**
 * The privacy area's tables (exports, erasures, guardian consents and attestations) and its reads of the consent
 * history. Read-only look-ups of memberships and organization names stay here (one statement each, served by
 * their keys); every write of another area's table goes through that area's service.
 */
@Injectable()
export class PrivacyRepository {
  constructor(private readonly dataSource: DataSource) {}

  private m(tx?: Tx) {
    return db(this.dataSource, tx);
  }

  // Consents (the history the users area writes).

  async consentPage(
    userId: string,
    kind: ConsentKind | undefined,
    limit: number,
    offset: number,
  ): Promise<{ rows: ConsentRow[]; total: number }> {
    const rows = await this.m().query<(ConsentRow & { total: number })[]>(
      `SELECT kind, granted, terms_version AS version, granted_at AS recorded_at, count(*) OVER ()::int AS total
       FROM consents_read WHERE user_id = $1 AND ($2::text IS NULL OR kind = $2)
       ORDER BY granted_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [userId, kind ?? null, limit, offset],
    );
    if (rows.length === 0 && offset > 0) {
      const [{ n }] = await this.m().query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM consents_read WHERE user_id = $1 AND ($2::text IS NULL OR kind = $2)`,
        [userId, kind ?? null],
      );
      return { rows: [], total: n };
    }
    return { rows: rows.map(({ total: _t, ...r }) => r), total: rows[0]?.total ?? 0 };
  }

  /** The newest row of each kind (the current state). */
  latestConsents(userId: string): Promise<ConsentRow[]> {
    return this.m().query<ConsentRow[]>(
      `SELECT DISTINCT ON (kind) kind, granted, terms_version AS version, granted_at AS recorded_at
       FROM consents_read WHERE user_id = $1 ORDER BY kind, granted_at DESC, id DESC`,
      [userId],
    );
  }

  // Organizations (read-only).

  async organizationName(organizationId: string): Promise<string | null> {
    const rows = await this.m().query<{ name: string }[]>(`SELECT name FROM organizations_read WHERE id = $1`, [
      organizationId,
    ]);
    return rows[0]?.name ?? null;
  }

  async organizationNamesOf(userId: string): Promise<string[]> {
    const rows = await this.m().query<{ name: string }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT o.name FROM memberships_read m JOIN organizations_read o ON o.id = m.organization_id
       WHERE m.user_id = $1 ORDER BY m.joined_at, o.id`,
      [userId],
    );
    return rows.map((r) => r.name);
  }

  /** Organizations where the person is the only owner, with how many other members each has. */
  soleOwnerships(userId: string, tx?: Tx): Promise<{ organization_id: string; others: number }[]> {
    return this.m(tx).query(
      `${tenancyExempt('person-across-organizations')} SELECT m.organization_id,
              (SELECT count(*)::int FROM memberships_read x WHERE x.organization_id = m.organization_id AND x.user_id <> $1) AS others
       FROM memberships_read m
       WHERE m.user_id = $1 AND m.role = 'owner'
         AND NOT EXISTS (SELECT 1 FROM memberships_read o WHERE o.organization_id = m.organization_id
                         AND o.role = 'owner' AND o.user_id <> $1)
       ORDER BY m.organization_id`,
      [userId],
    );
  }

  /** The longest-standing admin, else teacher, else student of the organization other than `userId`. */
  async successor(organizationId: string, userId: string, tx: Tx): Promise<{ user_id: string; role: string } | null> {
    const rows = await tx.manager.query<{ user_id: string; role: string }[]>(
      `SELECT user_id, role FROM memberships_read WHERE ${orgEq(1)} AND user_id <> $2
       ORDER BY CASE role WHEN 'admin' THEN 1 WHEN 'teacher' THEN 2 WHEN 'student' THEN 3 ELSE 4 END, joined_at, user_id
       LIMIT 1`,
      [organizationId, userId],
    );
    return rows[0] ?? null;
  }

  // Exports.

  async insertExport(userId: string, now: Date, tx?: Tx): Promise<ExportRow> {
    const [row] = await this.m(tx).query<ExportRow[]>(
      `INSERT INTO privacy_exports (user_id, status, created_at) VALUES ($1, 'queued', $2) RETURNING ${EXPORT_COLUMNS}`,
      [userId, now],
    );
    return row;
  }

  listExports(userId: string, limit: number): Promise<ExportRow[]> {
    return this.m().query<ExportRow[]>(
      `SELECT ${EXPORT_COLUMNS} FROM privacy_exports WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [userId, limit],
    );
  }

  async findExport(userId: string, id: string): Promise<ExportRow | null> {
    const rows = await this.m().query<ExportRow[]>(
      `SELECT ${EXPORT_COLUMNS} FROM privacy_exports WHERE id = $1 AND user_id = $2`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  /** Marks a queued (or retried) export running; null when it is no longer to be built. */
  async startExport(id: string, userId: string): Promise<ExportRow | null> {
    const [rows] = await this.m().query<[ExportRow[], number]>(
      `UPDATE privacy_exports SET status = 'running' WHERE id = $1 AND user_id = $2 AND status IN ('queued', 'running')
       RETURNING ${EXPORT_COLUMNS}`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  async finishExport(
    id: string,
    values: { fileKey: string; sizeBytes: number; readyAt: Date; expiresAt: Date },
    tx: Tx,
  ): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `UPDATE privacy_exports SET status = 'ready', file_key = $2, size_bytes = $3, ready_at = $4, expires_at = $5
       WHERE id = $1 AND status = 'running'`,
      [id, values.fileKey, values.sizeBytes, values.readyAt, values.expiresAt],
    );
    return count === 1;
  }

  async failExport(id: string): Promise<void> {
    await this.m().query(
      `UPDATE privacy_exports SET status = 'failed' WHERE id = $1 AND status IN ('queued', 'running')`,
      [id],
    );
  }

  /** Ready exports past their expiry (oldest first). */
  dueExpiries(now: Date, limit: number): Promise<ExportRow[]> {
    return this.m().query<ExportRow[]>(
      `SELECT ${EXPORT_COLUMNS} FROM privacy_exports WHERE status = 'ready' AND expires_at <= $1
       ORDER BY expires_at LIMIT $2`,
      [now, limit],
    );
  }

  async markExpired(id: string): Promise<void> {
    await this.m().query(`UPDATE privacy_exports SET status = 'expired', file_key = NULL WHERE id = $1`, [id]);
  }

  exportsOf(userId: string, tx?: Tx): Promise<ExportRow[]> {
    return this.m(tx).query<ExportRow[]>(
      `SELECT ${EXPORT_COLUMNS} FROM privacy_exports WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async deleteExportsOf(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM privacy_exports WHERE user_id = $1`, [userId]);
  }

  // Erasures.

  async activeErasure(userId: string, tx?: Tx): Promise<ErasureRow | null> {
    const rows = await this.m(tx).query<ErasureRow[]>(
      `SELECT * FROM account_erasures WHERE user_id = $1 AND status IN ('scheduled', 'running')`,
      [userId],
    );
    return rows[0] ?? null;
  }

  async findErasure(id: string, tx?: Tx): Promise<ErasureRow | null> {
    const rows = await this.m(tx).query<ErasureRow[]>(`SELECT * FROM account_erasures WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async insertErasure(
    values: { userId: string; keepCertificateNames: boolean; requestedAt: Date; scheduledFor: Date },
    tx: Tx,
  ): Promise<ErasureRow> {
    const [row] = await tx.manager.query<ErasureRow[]>(
      `INSERT INTO account_erasures (user_id, status, keep_certificate_names, requested_at, scheduled_for)
       VALUES ($1, 'scheduled', $2, $3, $4) RETURNING *`,
      [values.userId, values.keepCertificateNames, values.requestedAt, values.scheduledFor],
    );
    return row;
  }

  /** Cancels the scheduled erasure (not one already running); null when there is none. */
  async cancelErasure(userId: string, now: Date, tx: Tx): Promise<ErasureRow | null> {
    const [rows] = await tx.manager.query<[ErasureRow[], number]>(
      `UPDATE account_erasures SET status = 'cancelled', cancelled_at = $2
       WHERE user_id = $1 AND status = 'scheduled' RETURNING *`,
      [userId, now],
    );
    return rows[0] ?? null;
  }

  /**
   * Takes the erasure for a run: a scheduled one that is due, or a running one whose lease has passed (its worker
   * died). The lease keeps a second worker out while this one works; null when there is nothing to do now.
   */
  async claimErasure(id: string, now: Date, leaseUntil: Date): Promise<ErasureRow | null> {
    const [rows] = await this.m().query<[ErasureRow[], number]>(
      `UPDATE account_erasures SET status = 'running', started_at = COALESCE(started_at, $2), lease_until = $3
       WHERE id = $1 AND scheduled_for <= $2
         AND (status = 'scheduled' OR (status = 'running' AND (lease_until IS NULL OR lease_until <= $2)))
       RETURNING *`,
      [id, now, leaseUntil],
    );
    return rows[0] ?? null;
  }

  async captureFormerAddress(id: string, sealedEmail: string, locale: string, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE account_erasures SET former_email = COALESCE(former_email, $2), former_locale = COALESCE(former_locale, $3)
       WHERE id = $1`,
      [id, sealedEmail, locale],
    );
  }

  /** Records a step as done, in the step's own transaction (so it is done exactly when its work committed). */
  async markStep(id: string, step: string, leaseUntil: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE account_erasures SET steps_done = array_append(steps_done, $2::text), lease_until = $3
       WHERE id = $1 AND NOT ($2::text = ANY(steps_done))`,
      [id, step, leaseUntil],
    );
  }

  /** A failed run lets go at once, so its retry does not wait for the lease. */
  async releaseLease(id: string): Promise<void> {
    await this.m().query(`UPDATE account_erasures SET lease_until = NULL WHERE id = $1 AND status = 'running'`, [id]);
  }

  async completeErasure(id: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE account_erasures SET status = 'completed', completed_at = $2, lease_until = NULL, former_email = NULL,
         former_locale = NULL
       WHERE id = $1`,
      [id, now],
    );
  }

  async dueErasures(now: Date, limit: number): Promise<string[]> {
    const rows = await this.m().query<{ id: string }[]>(
      `SELECT id FROM account_erasures WHERE status IN ('scheduled', 'running') AND scheduled_for <= $1
         AND (lease_until IS NULL OR lease_until <= $1)
       ORDER BY scheduled_for LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Scheduled erasures due within the window that got no reminder yet; each is marked reminded in `tx`. */
  async takeDueReminders(until: Date, limit: number, tx: Tx): Promise<ErasureRow[]> {
    const [rows] = await tx.manager.query<[ErasureRow[], number]>(
      `UPDATE account_erasures SET reminded_at = now()
       WHERE id IN (SELECT id FROM account_erasures WHERE status = 'scheduled' AND reminded_at IS NULL
                    AND scheduled_for <= $1 ORDER BY scheduled_for LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [until, limit],
    );
    return rows;
  }

  erasuresOf(userId: string, tx?: Tx): Promise<ErasureRow[]> {
    return this.m(tx).query<ErasureRow[]>(`SELECT * FROM account_erasures WHERE user_id = $1 ORDER BY requested_at`, [
      userId,
    ]);
  }

  /** Requests that will never run again (cancelled) go on erasure; the running one is the erasure's own record. */
  async deleteFinishedErasuresOf(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM account_erasures WHERE user_id = $1 AND status = 'cancelled'`, [userId]);
  }

  // Guardian consent by email.

  async latestGuardianRequest(userId: string): Promise<GuardianRequestRow | null> {
    const rows = await this.m().query<GuardianRequestRow[]>(
      `SELECT ${GUARDIAN_COLUMNS} FROM guardian_consents WHERE user_id = $1 AND status <> 'replaced'
       ORDER BY requested_at DESC, id DESC LIMIT 1`,
      [userId],
    );
    return rows[0] ?? null;
  }

  async grantedByEmail(userId: string): Promise<GuardianRequestRow | null> {
    const rows = await this.m().query<GuardianRequestRow[]>(
      `SELECT ${GUARDIAN_COLUMNS} FROM guardian_consents WHERE user_id = $1 AND status = 'granted'
       ORDER BY decided_at DESC LIMIT 1`,
      [userId],
    );
    return rows[0] ?? null;
  }

  async replacePending(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE guardian_consents SET status = 'replaced' WHERE user_id = $1 AND status = 'pending'`,
      [userId],
    );
  }

  async insertGuardianRequest(
    values: {
      userId: string;
      guardianEmail: string;
      guardianName: string | null;
      tokenHash: string;
      requestedAt: Date;
      expiresAt: Date;
    },
    tx: Tx,
  ): Promise<GuardianRequestRow> {
    const [row] = await tx.manager.query<GuardianRequestRow[]>(
      `INSERT INTO guardian_consents (user_id, guardian_email, guardian_name, status, token_hash, requested_at, expires_at)
       VALUES ($1, $2, $3, 'pending', $4, $5, $6) RETURNING ${GUARDIAN_COLUMNS}`,
      [
        values.userId,
        values.guardianEmail,
        values.guardianName,
        values.tokenHash,
        values.requestedAt,
        values.expiresAt,
      ],
    );
    return row;
  }

  async guardianRequestByToken(tokenHash: string, tx?: Tx): Promise<GuardianRequestRow | null> {
    const rows = await this.m(tx).query<GuardianRequestRow[]>(
      `SELECT ${GUARDIAN_COLUMNS} FROM guardian_consents WHERE token_hash = $1 ${tx ? 'FOR UPDATE' : ''}`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async guardianRequestByRevokeToken(tokenHash: string, tx?: Tx): Promise<GuardianRequestRow | null> {
    const rows = await this.m(tx).query<GuardianRequestRow[]>(
      `SELECT ${GUARDIAN_COLUMNS} FROM guardian_consents WHERE revoke_token_hash = $1 ${tx ? 'FOR UPDATE' : ''}`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async decideGuardianRequest(
    id: string,
    values: {
      status: 'granted' | 'denied';
      decidedAt: Date;
      guardianName: string | null;
      revokeTokenHash: string | null;
      revokeExpiresAt: Date | null;
    },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE guardian_consents SET status = $2, decided_at = $3, guardian_name = COALESCE($4, guardian_name),
         revoke_token_hash = $5, revoke_expires_at = $6
       WHERE id = $1 AND status = 'pending'`,
      [id, values.status, values.decidedAt, values.guardianName, values.revokeTokenHash, values.revokeExpiresAt],
    );
  }

  async revokeGuardianRequest(id: string, now: Date, tx: Tx): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `UPDATE guardian_consents SET status = 'revoked', revoked_at = $2 WHERE id = $1 AND status = 'granted'`,
      [id, now],
    );
    return count === 1;
  }

  guardianRequestsOf(userId: string, tx?: Tx): Promise<GuardianRequestRow[]> {
    return this.m(tx).query<GuardianRequestRow[]>(
      `SELECT ${GUARDIAN_COLUMNS} FROM guardian_consents WHERE user_id = $1 ORDER BY requested_at, id`,
      [userId],
    );
  }

  async deleteGuardianRequestsOf(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM guardian_consents WHERE user_id = $1`, [userId]);
  }

  // Attestations by organizations.

  async attestation(organizationId: string, userId: string): Promise<AttestationRow | null> {
    const rows = await this.m().query<AttestationRow[]>(
      `SELECT organization_id, user_id, attested_at FROM guardian_attestations WHERE ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId],
    );
    return rows[0] ?? null;
  }

  /** Attestations of organizations the person still belongs to (a left organization's attestation counts nowhere). */
  async liveAttestations(userId: string): Promise<AttestationRow[]> {
    return this.m().query<AttestationRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT a.organization_id, a.user_id, a.attested_at FROM guardian_attestations a
       JOIN memberships_read m ON m.organization_id = a.organization_id AND m.user_id = a.user_id
       WHERE a.user_id = $1 ORDER BY a.attested_at DESC`,
      [userId],
    );
  }

  async upsertAttestation(
    values: { organizationId: string; userId: string; reason: string; attestedBy: string; now: Date },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO guardian_attestations (organization_id, user_id, reason, attested_by, attested_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, user_id) DO UPDATE SET reason = $3, attested_by = $4, attested_at = $5`,
      [values.organizationId, values.userId, values.reason, values.attestedBy, values.now],
    );
  }

  async deleteAttestation(organizationId: string, userId: string, tx: Tx): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `DELETE FROM guardian_attestations WHERE ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId],
    );
    return count === 1;
  }

  async eraseAttestations(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('person-across-organizations')} DELETE FROM guardian_attestations WHERE user_id = $1`,
      [userId],
    );
    await tx.manager.query(
      `${tenancyExempt('person-across-organizations')} UPDATE guardian_attestations SET attested_by = NULL WHERE attested_by = $1`,
      [userId],
    );
  }

  /** Consent by the guardian's email (anywhere), or by an attestation of `organizationId` (any of a member's, when null). */
  async hasConsent(userId: string, organizationId: string | null): Promise<boolean> {
    const [{ ok }] = await this.m().query<{ ok: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM guardian_consents WHERE user_id = $1 AND status = 'granted')
           OR EXISTS (SELECT 1 FROM guardian_attestations a
                      JOIN memberships_read m ON m.organization_id = a.organization_id AND m.user_id = a.user_id
                      WHERE a.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 'a')}::uuid)) AS ok`,
      [userId, organizationId],
    );
    return ok;
  }
}
