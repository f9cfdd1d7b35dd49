import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * extensions-v3 6.8: a tutor message reserves its maximum output plus its prompt estimate against the quotas before
 * the provider is called. The reservation lives on the conversation's answering lease (`answering_until`): it is
 * returned when the answer is stored (the metered call replaces it in the same transaction) or when the lease
 * lapses after a crash. The partial index serves the in-flight sums of an organization.
 */
export class TutorQuotaReservations1795909498469 implements MigrationInterface {
  name = 'TutorQuotaReservations1795909498469';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE tutor_conversations ADD COLUMN answering_reserved_tokens integer NOT NULL DEFAULT 0
         CHECK (answering_reserved_tokens >= 0)`,
    );
    await q.query(
      `CREATE INDEX tutor_conversations_answering_idx ON tutor_conversations (organization_id, answering_until)
         WHERE answering_until IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS tutor_conversations_answering_idx`);
    await q.query(`ALTER TABLE tutor_conversations DROP COLUMN IF EXISTS answering_reserved_tokens`);
  }
}
