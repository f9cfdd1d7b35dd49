import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What erasure (extensions-v2 17.3, 17.4) needs of the wave-1 tables: the account row becomes a tombstone marked
 * `erased_at`, and an issued certificate keeps the organization's record of issuance without the holder's name.
 * The registry's exporters and erasers look rows up by person; the two growing tables that had no index for it
 * get one (the audit log by actor, sessions opened by an impersonator).
 */
export class PersonalDataErasure1763741900000 implements MigrationInterface {
  name = 'PersonalDataErasure1763741900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN erased_at timestamptz NULL`);
    await q.query(`ALTER TABLE issued_certificates ALTER COLUMN holder_name DROP NOT NULL`);
    await q.query(
      `CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, created_at, id) WHERE actor_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX sessions_impersonator_idx ON sessions (impersonator_id) WHERE impersonator_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX sessions_impersonator_idx`);
    await q.query(`DROP INDEX audit_log_actor_idx`);
    // A name removed by an erasure is not coming back: the column needs some text to be NOT NULL again.
    await q.query(`UPDATE issued_certificates SET holder_name = '-' WHERE holder_name IS NULL`);
    await q.query(`ALTER TABLE issued_certificates ALTER COLUMN holder_name SET NOT NULL`);
    await q.query(`ALTER TABLE users DROP COLUMN erased_at`);
  }
}
