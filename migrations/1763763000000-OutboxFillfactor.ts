import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 10 (XP throughput): every domain-event delivery is updated twice (claimed with a lease, then marked done).
 * The claim changes no indexed column, so with room left on its page PostgreSQL updates it in place (HOT) without
 * touching the two indexes; at the default fillfactor (100) freshly written pages are full and every claim wrote
 * index entries too. 70 leaves that room on the pages written from now on.
 */
export class OutboxFillfactor1763763000000 implements MigrationInterface {
  name = 'OutboxFillfactor1763763000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domain_event_deliveries SET (fillfactor = 70)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domain_event_deliveries RESET (fillfactor)`);
  }
}
