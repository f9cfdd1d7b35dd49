import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The issued-certificate list and export filtered by `type` alone. `issued_certificates_org_status_idx` leads
 * with the status, so without this index a type filter walked every certificate of the organization in date order
 * (page) or read them all (count); measured at 100 000 certificates in bench/README.md ("Certificates").
 */
export class CertificateIndexes1763741500000 implements MigrationInterface {
  name = 'CertificateIndexes1763741500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX issued_certificates_org_type_idx ON issued_certificates (organization_id, type, issued_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX issued_certificates_org_type_idx`);
  }
}
