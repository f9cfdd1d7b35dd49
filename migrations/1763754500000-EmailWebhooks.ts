import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email-provider webhooks (extensions-v2 22): the ids of applied events (replay refusal, kept 7 days) and the
 * suppression list, which never stores an address, only its keyed hash and a masked form for display.
 */
export class EmailWebhooks1763754500000 implements MigrationInterface {
  name = 'EmailWebhooks1763754500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE email_webhook_events (
        webhook_id text PRIMARY KEY CHECK (char_length(webhook_id) BETWEEN 1 AND 256),
        event_type text NOT NULL CHECK (char_length(event_type) BETWEEN 1 AND 100),
        outcome text NOT NULL CHECK (outcome IN ('processed', 'ignored')),
        received_at timestamptz NOT NULL
      )`);
    // The daily prune deletes by age.
    await q.query(`CREATE INDEX email_webhook_events_received_idx ON email_webhook_events (received_at)`);

    await q.query(`
      CREATE TABLE email_suppressions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        address_hash text NOT NULL CHECK (address_hash ~ '^[a-f0-9]{64}$'),
        email_masked text NOT NULL CHECK (char_length(email_masked) BETWEEN 1 AND 320),
        reason text NOT NULL CHECK (reason IN ('hard_bounce', 'complaint', 'manual')),
        source_event_id text NULL CHECK (char_length(source_event_id) BETWEEN 1 AND 256),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // One entry per address: every send looks it up by hash.
    await q.query(`CREATE UNIQUE INDEX email_suppressions_address_uq ON email_suppressions (address_hash)`);
    // The admin list: newest first, optionally of one reason.
    await q.query(`CREATE INDEX email_suppressions_created_idx ON email_suppressions (created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX email_suppressions_reason_idx ON email_suppressions (reason, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE email_suppressions`);
    await q.query(`DROP TABLE email_webhook_events`);
  }
}
