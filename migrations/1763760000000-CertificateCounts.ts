import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20: the issued-certificate list's `total` without an exact `count(*)` over the organization's certificates.
 *
 * `issued_certificate_counts` holds, per organization, status and type, how many certificates there are. Statement
 * triggers with transition tables keep it in the same transaction as every insert, update of those columns, delete
 * and truncate of `issued_certificates` (one aggregated upsert per statement, rows taken in key order so concurrent
 * writers lock them in the same order). The list's total for the organization-wide filters (none, status, type,
 * both) is then a sum of at most six rows and stays exact; narrower filters (course, program, cohort, teacher)
 * still count through their own index, bounded by the size of what they select.
 *
 * `issued_certificates_org_status_date_idx` serves `status` alone in date order, so a deep page (offset 5 000)
 * is found by an index-only scan before the page's rows are read (see `CertificatesRepository.list`).
 */
export class CertificateCounts1763760000000 implements MigrationInterface {
  name = 'CertificateCounts1763760000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE IF NOT EXISTS issued_certificate_counts (
      organization_id uuid NOT NULL,
      status text NOT NULL,
      type text NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (organization_id, status, type)
    )`);
    const upsert = (select: string): string => `
      INSERT INTO issued_certificate_counts (organization_id, status, type, n)
      SELECT organization_id, status, type, sum(d) FROM (${select}) x
      GROUP BY organization_id, status, type HAVING sum(d) <> 0
      ORDER BY organization_id, status, type
      ON CONFLICT (organization_id, status, type) DO UPDATE SET n = issued_certificate_counts.n + EXCLUDED.n`;
    await q.query(`CREATE OR REPLACE FUNCTION issued_certificate_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert('SELECT organization_id, status, type, 1 AS d FROM new_rows')}; RETURN NULL; END $$`);
    await q.query(`CREATE OR REPLACE FUNCTION issued_certificate_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert('SELECT organization_id, status, type, -1 AS d FROM old_rows')}; RETURN NULL; END $$`);
    await q.query(`CREATE OR REPLACE FUNCTION issued_certificate_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert(
        'SELECT organization_id, status, type, -1 AS d FROM old_rows UNION ALL SELECT organization_id, status, type, 1 FROM new_rows',
      )}; RETURN NULL; END $$`);
    await q.query(`CREATE OR REPLACE FUNCTION issued_certificate_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM issued_certificate_counts; RETURN NULL; END $$`);
    await q.query(`DROP TRIGGER IF EXISTS issued_certificate_counts_insert ON issued_certificates`);
    await q.query(`DROP TRIGGER IF EXISTS issued_certificate_counts_delete ON issued_certificates`);
    await q.query(`DROP TRIGGER IF EXISTS issued_certificate_counts_update ON issued_certificates`);
    await q.query(`DROP TRIGGER IF EXISTS issued_certificate_counts_truncate ON issued_certificates`);
    // The count is taken under a lock that keeps writers out until the triggers exist (same transaction).
    await q.query(`LOCK TABLE issued_certificates IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`CREATE TRIGGER issued_certificate_counts_insert AFTER INSERT ON issued_certificates
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issued_certificate_counts_insert()`);
    await q.query(`CREATE TRIGGER issued_certificate_counts_delete AFTER DELETE ON issued_certificates
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION issued_certificate_counts_delete()`);
    await q.query(`CREATE TRIGGER issued_certificate_counts_update AFTER UPDATE ON issued_certificates
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issued_certificate_counts_update()`);
    await q.query(`CREATE TRIGGER issued_certificate_counts_truncate AFTER TRUNCATE ON issued_certificates
      FOR EACH STATEMENT EXECUTE FUNCTION issued_certificate_counts_truncate()`);
    await q.query(`DELETE FROM issued_certificate_counts`);
    await q.query(`INSERT INTO issued_certificate_counts (organization_id, status, type, n)
      SELECT organization_id, status, type, count(*) FROM issued_certificates GROUP BY organization_id, status, type`);
    await q.query(`CREATE INDEX IF NOT EXISTS issued_certificates_org_status_date_idx
      ON issued_certificates (organization_id, status, issued_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS issued_certificates_org_status_date_idx`);
    for (const op of ['insert', 'delete', 'update', 'truncate']) {
      await q.query(`DROP TRIGGER IF EXISTS issued_certificate_counts_${op} ON issued_certificates`);
      await q.query(`DROP FUNCTION IF EXISTS issued_certificate_counts_${op}()`);
    }
    await q.query(`DROP TABLE IF EXISTS issued_certificate_counts`);
  }
}
