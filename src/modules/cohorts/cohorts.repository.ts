import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Tx } from '@/core/database/transaction';

export interface CohortRow {
  id: string;
  organization_id: string;
  institute_id: string | null;
  name: string;
  starts_on: string | null;
  ends_on: string | null;
  created_at: Date;
  updated_at: Date;
}

export type CohortRole = 'student' | 'teacher';

const COLUMNS = `id, organization_id, institute_id, name, to_char(starts_on, 'YYYY-MM-DD') AS starts_on,
  to_char(ends_on, 'YYYY-MM-DD') AS ends_on, created_at, updated_at`;

/** Cohorts are tenant data: every query takes the organization id. */
@Injectable()
export class CohortsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private db(tx?: Tx): EntityManager {
    return tx?.manager ?? this.dataSource.manager;
  }

  async findById(organizationId: string, cohortId: string, tx?: Tx): Promise<CohortRow | null> {
    const rows = await this.db(tx).query<CohortRow[]>(`SELECT ${COLUMNS} FROM cohorts WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      cohortId,
    ]);
    return rows[0] ?? null;
  }

  async findByName(organizationId: string, name: string, tx?: Tx): Promise<CohortRow | null> {
    const rows = await this.db(tx).query<CohortRow[]>(
      `SELECT ${COLUMNS} FROM cohorts WHERE organization_id = $1 AND lower(name) = lower($2) ORDER BY created_at LIMIT 1`,
      [organizationId, name],
    );
    return rows[0] ?? null;
  }

  /** Adds (or re-roles) a member of the organization to a cohort of the same organization. */
  async addMember(organizationId: string, cohortId: string, userId: string, role: CohortRole, now: Date, tx?: Tx): Promise<void> {
    await this.db(tx).query(
      `INSERT INTO cohort_members (cohort_id, organization_id, user_id, role, added_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (cohort_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
      [cohortId, organizationId, userId, role, now],
    );
  }

  async cohortIdsOfMember(organizationId: string, userId: string, role?: CohortRole): Promise<string[]> {
    const rows = await this.dataSource.query<{ cohort_id: string }[]>(
      `SELECT cohort_id FROM cohort_members WHERE organization_id = $1 AND user_id = $2 AND ($3::text IS NULL OR role = $3)`,
      [organizationId, userId, role ?? null],
    );
    return rows.map((r) => r.cohort_id);
  }

  async isTeacherOf(organizationId: string, cohortId: string, userId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM cohort_members WHERE organization_id = $1 AND cohort_id = $2 AND user_id = $3 AND role = 'teacher'`,
      [organizationId, cohortId, userId],
    );
    return rows.length > 0;
  }

  /** The students of every cohort this person teaches in the organization. */
  async studentIdsTaughtBy(organizationId: string, teacherId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT DISTINCT s.user_id FROM cohort_members t
       JOIN cohort_members s ON s.cohort_id = t.cohort_id AND s.organization_id = t.organization_id AND s.role = 'student'
       WHERE t.organization_id = $1 AND t.user_id = $2 AND t.role = 'teacher'`,
      [organizationId, teacherId],
    );
    return rows.map((r) => r.user_id);
  }
}
