import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface SsoDomainRow {
  id: string;
  organization_id: string;
  domain: string;
  status: 'pending' | 'verified';
  verification_token: string;
  enforced: boolean;
  verified_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, domain, status, verification_token, enforced, verified_at, created_at';

/** Email domains an organization claims for SSO; every query of one organization's domains takes its id. */
@Injectable()
export class SsoDomainsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The verification of this domain, if an organization holds one (at most one can). */
  async findVerified(domain: string): Promise<SsoDomainRow | null> {
    const rows = await this.dataSource.query<SsoDomainRow[]>(
      `${tenancyExempt('sign-in-lookup')} SELECT ${COLUMNS} FROM sso_domains WHERE domain = $1 AND status = 'verified'`,
      [domain],
    );
    return rows[0] ?? null;
  }

  async list(organizationId: string, limit: number, offset: number): Promise<{ rows: SsoDomainRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.dataSource.query<SsoDomainRow[]>(
        `SELECT ${COLUMNS} FROM sso_domains WHERE ${orgEq(1)} ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
        [organizationId, limit, offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM sso_domains WHERE ${orgEq(1)}`, [
        organizationId,
      ]),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  async find(organizationId: string, id: string, tx?: Tx): Promise<SsoDomainRow | null> {
    const rows = await db(this.dataSource, tx).query<SsoDomainRow[]>(
      `SELECT ${COLUMNS} FROM sso_domains WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async findByDomain(organizationId: string, domain: string): Promise<SsoDomainRow | null> {
    const rows = await this.dataSource.query<SsoDomainRow[]>(
      `SELECT ${COLUMNS} FROM sso_domains WHERE ${orgEq(1)} AND domain = $2`,
      [organizationId, domain],
    );
    return rows[0] ?? null;
  }

  async insert(organizationId: string, domain: string, token: string, now: Date, tx?: Tx): Promise<SsoDomainRow> {
    const rows = await db(this.dataSource, tx).query<SsoDomainRow[]>(
      `INSERT INTO sso_domains (organization_id, domain, verification_token, created_at)
       VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
      [organizationId, domain, token, now],
    );
    return rows[0];
  }

  async markVerified(organizationId: string, id: string, now: Date, tx?: Tx): Promise<SsoDomainRow | null> {
    const [rows] = await db(this.dataSource, tx).query<[SsoDomainRow[], number]>(
      `UPDATE sso_domains SET status = 'verified', verified_at = $3
       WHERE ${orgEq(1)} AND id = $2 RETURNING ${COLUMNS}`,
      [organizationId, id, now],
    );
    return rows[0] ?? null;
  }

  async setEnforced(organizationId: string, id: string, enforced: boolean, tx?: Tx): Promise<SsoDomainRow | null> {
    const [rows] = await db(this.dataSource, tx).query<[SsoDomainRow[], number]>(
      `UPDATE sso_domains SET enforced = $3 WHERE ${orgEq(1)} AND id = $2 AND status = 'verified'
       RETURNING ${COLUMNS}`,
      [organizationId, id, enforced],
    );
    return rows[0] ?? null;
  }

  async delete(organizationId: string, id: string, tx?: Tx): Promise<boolean> {
    const [, count] = await db(this.dataSource, tx).query<[unknown[], number]>(
      `DELETE FROM sso_domains WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id],
    );
    return count === 1;
  }
}
