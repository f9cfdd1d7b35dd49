import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface InstituteRow {
  id: string;
  name: string;
  city: string | null;
  contact_email: string | null;
  website: string | null;
  created_by_organization_id: string | null;
  created_at: Date;
  /** Cohorts of this institute in the organization the row was read for. */
  cohorts_count: number;
}

export interface InstituteValues {
  name: string;
  city: string | null;
  contact_email: string | null;
  website: string | null;
}

/** Columns of `i` (institutes) with the count of its cohorts in the organization `$1`. */
const COLUMNS = `i.id, i.name, i.city, i.contact_email, i.website, i.created_by_organization_id, i.created_at,
  (SELECT count(*)::int FROM cohorts_read c WHERE c.institute_id = i.id AND ${orgEq(1, 'c')}) AS cohorts_count`;

/**
 * The linkage rule, for the institute `i` and the organization `$1`. The legacy link is read from the table, not
 * from the cached organization, because data migrations set it outside the API. Served by the primary key of
 * organizations, `cohorts_institute_idx` and `institutes_created_by_org_idx`.
 */
const LINKED = `(i.created_by_organization_id = $1
  OR EXISTS (SELECT 1 FROM organizations_read o WHERE o.id = $1 AND o.legacy_institute_id = i.id)
  OR EXISTS (SELECT 1 FROM cohorts_read c WHERE c.institute_id = i.id AND ${orgEq(1, 'c')}))`;

/**
 * Institutes are shared records, not tenant data: an organization sees (and manages) only those linked to it, so
 * every query here takes the organization id and applies the linkage rule.
 */
@Injectable()
export class InstitutesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every institute linked to the organization, by name. */
  listLinked(organizationId: string): Promise<InstituteRow[]> {
    return this.dataSource.query<InstituteRow[]>(
      `WITH linked AS (
         SELECT legacy_institute_id AS id FROM organizations_read WHERE id = $1 AND legacy_institute_id IS NOT NULL
         UNION SELECT institute_id FROM cohorts_read WHERE ${orgEq(1)} AND institute_id IS NOT NULL
         UNION SELECT id FROM institutes WHERE created_by_organization_id = $1
       )
       SELECT ${COLUMNS} FROM linked JOIN institutes i ON i.id = linked.id ORDER BY i.name, i.id`,
      [organizationId],
    );
  }

  /** The institute when it is linked to the organization, else null; `lock` holds it until the transaction ends. */
  async findLinked(organizationId: string, instituteId: string, tx?: Tx, lock = false): Promise<InstituteRow | null> {
    const rows = await db(this.dataSource, tx).query<InstituteRow[]>(
      `SELECT ${COLUMNS} FROM institutes i WHERE i.id = $2 AND ${LINKED}${lock ? ' FOR UPDATE OF i' : ''}`,
      [organizationId, instituteId],
    );
    return rows[0] ?? null;
  }

  async isLinked(organizationId: string, instituteId: string, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<unknown[]>(
      `SELECT 1 FROM institutes i WHERE i.id = $2 AND ${LINKED}`,
      [organizationId, instituteId],
    );
    return rows.length > 0;
  }

  /** Whether another organization is linked to the institute too (by legacy id, a cohort, or creation). */
  async linkedElsewhere(organizationId: string, instituteId: string, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<{ shared: boolean }[]>(
      `${tenancyExempt('cross-organization-existence')} SELECT EXISTS (SELECT 1 FROM organizations_read WHERE legacy_institute_id = $2 AND id <> $1)
           OR EXISTS (SELECT 1 FROM cohorts_read WHERE institute_id = $2 AND organization_id <> $1)
           OR EXISTS (SELECT 1 FROM institutes WHERE id = $2 AND created_by_organization_id <> $1) AS shared`,
      [organizationId, instituteId],
    );
    return rows[0]?.shared ?? false;
  }

  async insert(organizationId: string, values: InstituteValues, now: Date, tx: Tx): Promise<InstituteRow> {
    const rows = await tx.manager.query<InstituteRow[]>(
      `INSERT INTO institutes (name, city, contact_email, website, created_by_organization_id, created_at)
       VALUES ($2, $3, $4, $5, $1, $6)
       RETURNING id, name, city, contact_email, website, created_by_organization_id, created_at, 0 AS cohorts_count`,
      [organizationId, values.name, values.city, values.contact_email, values.website, now],
    );
    return rows[0];
  }

  async update(organizationId: string, instituteId: string, values: InstituteValues, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE institutes i SET name = $3, city = $4, contact_email = $5, website = $6 WHERE i.id = $2 AND ${LINKED}`,
      [organizationId, instituteId, values.name, values.city, values.contact_email, values.website],
    );
  }

  /** Cohorts keep existing without an institute, and a legacy link is cleared (both by foreign key). */
  async delete(organizationId: string, instituteId: string, tx: Tx): Promise<boolean> {
    const [, affected] = await tx.manager.query<[unknown[], number]>(
      `DELETE FROM institutes i WHERE i.id = $2 AND ${LINKED}`,
      [organizationId, instituteId],
    );
    return affected > 0;
  }
}
