import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * extensions-v3 6.11: the public Open Badges achievement and issuer routes answer only for a course, program or
 * organization with at least one credential that is not revoked. These partial indexes keep that check an index
 * probe on a public route (the organization's is served by issued_certificates_org_type_idx).
 */
export class PublicBadgeIndexes1795908662960 implements MigrationInterface {
  name = 'PublicBadgeIndexes1795908662960';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX issued_certificates_course_standing_idx ON issued_certificates (course_id) WHERE status <> 'revoked' AND course_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX issued_certificates_path_standing_idx ON issued_certificates (path_id) WHERE status <> 'revoked' AND path_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS issued_certificates_path_standing_idx`);
    await q.query(`DROP INDEX IF EXISTS issued_certificates_course_standing_idx`);
  }
}
