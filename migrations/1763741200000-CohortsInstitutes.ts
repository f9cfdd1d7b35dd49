import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Indexes of the cohorts list and of institute administration. */
export class CohortsInstitutes1763741200000 implements MigrationInterface {
  name = 'CohortsInstitutes1763741200000';

  async up(q: QueryRunner): Promise<void> {
    // `q` (name contains, case-insensitive) on the cohorts list: ILIKE '%...%' needs trigrams.
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`CREATE INDEX cohorts_name_trgm_idx ON cohorts USING gin (name gin_trgm_ops)`);
    // Whether another organization holds an institute as its legacy one, and the ON DELETE SET NULL of
    // organizations.legacy_institute_id when an institute is deleted.
    await q.query(
      `CREATE INDEX organizations_legacy_institute_idx ON organizations (legacy_institute_id)
       WHERE legacy_institute_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX organizations_legacy_institute_idx`);
    await q.query(`DROP INDEX cohorts_name_trgm_idx`);
    // pg_trgm stays: other areas may use it.
  }
}
