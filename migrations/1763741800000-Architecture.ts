import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The house before it doubles: the domain-event log with one delivery row per (event, subscriber), and the time
 * zones of people and organizations (extensions-v2 2.3).
 */
export class Architecture1763741800000 implements MigrationInterface {
  name = 'Architecture1763741800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE domain_events (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        version integer NOT NULL,
        organization_id uuid NULL,
        actor_id uuid NULL,
        occurred_at timestamptz NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX domain_events_occurred_idx ON domain_events (occurred_at)`);
    await q.query(`CREATE INDEX domain_events_org_name_idx ON domain_events (organization_id, name, occurred_at)`);

    await q.query(`
      CREATE TABLE domain_event_deliveries (
        event_id uuid NOT NULL REFERENCES domain_events (id) ON DELETE CASCADE,
        subscriber text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        run_after timestamptz NOT NULL,
        locked_until timestamptz NULL,
        last_error text NULL,
        done_at timestamptz NULL,
        PRIMARY KEY (event_id, subscriber)
      )`);
    await q.query(
      `CREATE INDEX domain_event_deliveries_due_idx ON domain_event_deliveries (run_after) WHERE status = 'pending'`,
    );
    await q.query(
      `CREATE INDEX domain_event_deliveries_failed_idx ON domain_event_deliveries (subscriber) WHERE status = 'failed'`,
    );

    await q.query(
      `ALTER TABLE users ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC' CHECK (char_length(time_zone) BETWEEN 1 AND 64)`,
    );
    await q.query(
      `ALTER TABLE organizations ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC' CHECK (char_length(time_zone) BETWEEN 1 AND 64)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations DROP COLUMN time_zone`);
    await q.query(`ALTER TABLE users DROP COLUMN time_zone`);
    await q.query(`DROP TABLE domain_event_deliveries`);
    await q.query(`DROP TABLE domain_events`);
  }
}
