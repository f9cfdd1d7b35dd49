import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { OrgRole } from '@/core/auth/tenancy';
import type { Tx } from '@/core/database/transaction';
import type { InvitationStatus, StoredInvitationStatus } from './invitation-rules';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: OrgRole;
  cohort_id: string | null;
  status: StoredInvitationStatus;
  expires_at: Date;
  invited_by: string | null;
  accepted_by: string | null;
  accepted_at: Date | null;
  revoked_at: Date | null;
  import_id: string | null;
  created_at: Date;
}

const COLUMNS = `id, organization_id, email, role, cohort_id, status, expires_at, invited_by, accepted_by, accepted_at,
  revoked_at, import_id, created_at`;

/** The stored condition of each status a client can filter on ("expired" is computed against the Clock, `$2`). */
const STATUS_CONDITION: Record<InvitationStatus, string> = {
  pending: `status = 'pending' AND expires_at > $2`,
  expired: `status = 'pending' AND expires_at <= $2`,
  accepted: `status = 'accepted'`,
  revoked: `status = 'revoked'`,
};

/**
 * Invitations are tenant data: reads by id filter by organization, or (for the invited person) by the invited
 * address. The link's token is only ever stored and looked up as its SHA-256.
 */
@Injectable()
export class InvitationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    values: {
      organizationId: string;
      email: string;
      role: OrgRole;
      cohortId: string | null;
      tokenHash: string;
      expiresAt: Date;
      invitedBy: string | null;
      importId: string | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<InvitationRow> {
    const rows = await tx.manager.query<InvitationRow[]>(
      `INSERT INTO invitations (organization_id, email, role, cohort_id, token_hash, status, expires_at, invited_by,
         import_id, created_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [
        values.organizationId,
        values.email,
        values.role,
        values.cohortId,
        values.tokenHash,
        values.expiresAt,
        values.invitedBy,
        values.importId,
        values.now,
      ],
    );
    return rows[0];
  }

  /** `insert` for many invitations in one statement; answers the rows in the order of `values.items`. */
  async insertMany(
    values: {
      organizationId: string;
      items: readonly { email: string; role: OrgRole; cohortId: string | null; tokenHash: string }[];
      expiresAt: Date;
      invitedBy: string | null;
      importId: string | null;
      now: Date;
    },
    tx: Tx,
  ): Promise<InvitationRow[]> {
    if (values.items.length === 0) return [];
    const rows = await tx.manager.query<InvitationRow[]>(
      `INSERT INTO invitations (organization_id, email, role, cohort_id, token_hash, status, expires_at, invited_by,
         import_id, created_at)
       SELECT $1, e, r, c, t, 'pending', $6, $7, $8, $9
       FROM unnest($2::text[], $3::text[], $4::uuid[], $5::text[]) AS x(e, r, c, t)
       RETURNING ${COLUMNS}`,
      [
        values.organizationId,
        values.items.map((i) => i.email),
        values.items.map((i) => i.role),
        values.items.map((i) => i.cohortId),
        values.items.map((i) => i.tokenHash),
        values.expiresAt,
        values.invitedBy,
        values.importId,
        values.now,
      ],
    );
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    return values.items.map((i) => byEmail.get(i.email)!);
  }

  /** `lockAddress` for many addresses, taken in a fixed order so two bulk invitations cannot deadlock. */
  async lockAddresses(organizationId: string, emails: readonly string[], tx: Tx): Promise<void> {
    if (emails.length === 0) return;
    const keys = [...new Set(emails)].map((e) => `invitation:${organizationId}:${e}`).sort();
    await tx.manager.query(
      `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS x(k, n) ORDER BY n`,
      [keys],
    );
  }

  /** `revokePendingTo` for many addresses: answers the revoked ids by address. */
  async revokePendingToMany(
    organizationId: string,
    emails: readonly string[],
    now: Date,
    tx: Tx,
  ): Promise<Map<string, string[]>> {
    const revoked = new Map<string, string[]>();
    if (emails.length === 0) return revoked;
    const [rows] = await tx.manager.query<[{ id: string; email: string }[], number]>(
      `UPDATE invitations SET status = 'revoked', revoked_at = $3
       WHERE ${orgEq(1)} AND email = ANY($2::text[]) AND status = 'pending' RETURNING id, email`,
      [organizationId, emails, now],
    );
    for (const r of rows) revoked.set(r.email, [...(revoked.get(r.email) ?? []), r.id]);
    return revoked;
  }

  /**
   * Serializes invitations to one address in one organization until the transaction ends, so two concurrent
   * invitations cannot both stay pending.
   */
  async lockAddress(organizationId: string, email: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `invitation:${organizationId}:${email}`,
    ]);
  }

  /** Revokes the pending invitations to this address in this organization; returns their ids. */
  async revokePendingTo(organizationId: string, email: string, now: Date, tx: Tx): Promise<string[]> {
    const [rows] = await tx.manager.query<[{ id: string }[], number]>(
      `UPDATE invitations SET status = 'revoked', revoked_at = $3
       WHERE ${orgEq(1)} AND email = $2 AND status = 'pending' RETURNING id`,
      [organizationId, email, now],
    );
    return rows.map((r) => r.id);
  }

  async findByTokenHash(tokenHash: string, tx?: Tx): Promise<InvitationRow | null> {
    const rows = await db(this.dataSource, tx).query<InvitationRow[]>(
      `${tenancyExempt('sign-in-lookup')} SELECT ${COLUMNS} FROM invitations WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  /** An invitation addressed to this email (an invitation to anyone else is "not found"). */
  async findByIdForEmail(id: string, email: string): Promise<InvitationRow | null> {
    const rows = await this.dataSource.query<InvitationRow[]>(
      `${tenancyExempt('sign-in-lookup')} SELECT ${COLUMNS} FROM invitations WHERE id = $1 AND email = $2`,
      [id, email],
    );
    return rows[0] ?? null;
  }

  async findInOrganization(organizationId: string, id: string, tx?: Tx): Promise<InvitationRow | null> {
    const rows = await db(this.dataSource, tx).query<InvitationRow[]>(
      `SELECT ${COLUMNS} FROM invitations WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  /** Locks the row for the rest of the transaction (an acceptance against a concurrent revocation). */
  async lock(organizationId: string, id: string, tx: Tx): Promise<InvitationRow | null> {
    const rows = await tx.manager.query<InvitationRow[]>(
      `SELECT ${COLUMNS} FROM invitations WHERE ${orgEq(1)} AND id = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async markAccepted(organizationId: string, id: string, userId: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE invitations SET status = 'accepted', accepted_by = $3, accepted_at = $4
       WHERE ${orgEq(1)} AND id = $2 AND status = 'pending'`,
      [organizationId, id, userId, now],
    );
  }

  /** Revokes a pending (or expired) invitation of the organization; null when there was none to revoke. */
  async revoke(organizationId: string, id: string, now: Date, tx: Tx): Promise<InvitationRow | null> {
    const [rows] = await tx.manager.query<[InvitationRow[], number]>(
      `UPDATE invitations SET status = 'revoked', revoked_at = $3
       WHERE ${orgEq(1)} AND id = $2 AND status = 'pending' RETURNING ${COLUMNS}`,
      [organizationId, id, now],
    );
    return rows[0] ?? null;
  }

  /** Most recent first; served by invitations_org_status_idx (organization_id, status, created_at DESC). */
  async list(
    organizationId: string,
    filter: { status?: InvitationStatus; now: Date; limit: number; offset: number },
  ): Promise<{ rows: InvitationRow[]; total: number }> {
    const condition = filter.status ? STATUS_CONDITION[filter.status] : 'TRUE';
    const params: unknown[] = condition.includes('$2') ? [organizationId, filter.now] : [organizationId];
    const where = `${orgEq(1)} AND ${condition}`;
    const page = params.length + 1;
    const [rows, [count]] = await Promise.all([
      this.dataSource.query<InvitationRow[]>(
        `SELECT ${COLUMNS} FROM invitations WHERE ${where} ORDER BY created_at DESC, id
         LIMIT $${page} OFFSET $${page + 1}`,
        [...params, filter.limit, filter.offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM invitations WHERE ${where}`, params),
    ]);
    return { rows, total: count?.n ?? 0 };
  }

  /** Pending, unexpired invitations to this address (served by invitations_email_pending_idx). */
  pendingFor(email: string, now: Date): Promise<InvitationRow[]> {
    return this.dataSource.query<InvitationRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT ${COLUMNS} FROM invitations WHERE email = $1 AND status = 'pending' AND expires_at > $2
       ORDER BY created_at DESC, id`,
      [email, now],
    );
  }
}
