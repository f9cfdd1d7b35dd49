import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface SsoConnectionRow {
  id: string;
  organization_id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret_encrypted: string;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, organization_id, name, issuer, client_id, client_secret_encrypted, enabled, created_at, updated_at';

const UPDATABLE = ['name', 'issuer', 'client_id', 'client_secret_encrypted', 'enabled'] as const;
export type SsoConnectionChanges = Partial<Pick<SsoConnectionRow, (typeof UPDATABLE)[number]>>;

/** SSO connections; every query of an organization's connections takes its id. */
@Injectable()
export class SsoConnectionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(
    organizationId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: SsoConnectionRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.dataSource.query<SsoConnectionRow[]>(
        `SELECT ${COLUMNS} FROM sso_connections WHERE ${orgEq(1)}
         ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
        [organizationId, limit, offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM sso_connections WHERE ${orgEq(1)}`, [
        organizationId,
      ]),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  async find(organizationId: string, id: string, tx?: Tx): Promise<SsoConnectionRow | null> {
    const rows = await db(this.dataSource, tx).query<SsoConnectionRow[]>(
      `SELECT ${COLUMNS} FROM sso_connections WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  /**
   * A connection by id alone, for the public sign-in entry points (the id is all the browser brings); the
   * caller then acts only in the organization the connection belongs to.
   */
  async findForSignIn(
    id: string,
  ): Promise<(SsoConnectionRow & { organization_status: string; organization_name: string }) | null> {
    const rows = await this.dataSource.query<
      (SsoConnectionRow & { organization_status: string; organization_name: string })[]
    >(
      `${tenancyExempt('sign-in-lookup')} SELECT ${COLUMNS.split(', ')
        .map((c) => `c.${c}`)
        .join(', ')}, o.status AS organization_status, o.name AS organization_name
       FROM sso_connections c JOIN organizations_read o ON o.id = c.organization_id WHERE c.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The organization's oldest enabled connection: the one offered at sign-in. */
  async firstEnabled(organizationId: string): Promise<SsoConnectionRow | null> {
    const rows = await this.dataSource.query<SsoConnectionRow[]>(
      `SELECT ${COLUMNS} FROM sso_connections WHERE ${orgEq(1)} AND enabled
       ORDER BY created_at, id LIMIT 1`,
      [organizationId],
    );
    return rows[0] ?? null;
  }

  async insert(
    organizationId: string,
    values: Pick<SsoConnectionRow, 'name' | 'issuer' | 'client_id' | 'client_secret_encrypted' | 'enabled'>,
    createdBy: string,
    now: Date,
    tx?: Tx,
  ): Promise<SsoConnectionRow> {
    const rows = await db(this.dataSource, tx).query<SsoConnectionRow[]>(
      `INSERT INTO sso_connections (organization_id, name, issuer, client_id, client_secret_encrypted, enabled,
         created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLUMNS}`,
      [
        organizationId,
        values.name,
        values.issuer,
        values.client_id,
        values.client_secret_encrypted,
        values.enabled,
        createdBy,
        now,
      ],
    );
    return rows[0];
  }

  async update(
    organizationId: string,
    id: string,
    changes: SsoConnectionChanges,
    now: Date,
    tx?: Tx,
  ): Promise<SsoConnectionRow | null> {
    const sets: string[] = [];
    const params: unknown[] = [organizationId, id, now];
    for (const column of UPDATABLE) {
      if (changes[column] === undefined) continue;
      params.push(changes[column]);
      sets.push(`${column} = $${params.length}`);
    }
    const [rows] = await db(this.dataSource, tx).query<[SsoConnectionRow[], number]>(
      `UPDATE sso_connections SET ${[...sets, 'updated_at = $3'].join(', ')}
       WHERE ${orgEq(1)} AND id = $2 RETURNING ${COLUMNS}`,
      params,
    );
    return rows[0] ?? null;
  }

  async delete(organizationId: string, id: string, tx?: Tx): Promise<SsoConnectionRow | null> {
    const [rows] = await db(this.dataSource, tx).query<[SsoConnectionRow[], number]>(
      `DELETE FROM sso_connections WHERE ${orgEq(1)} AND id = $2 RETURNING ${COLUMNS}`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }
}
