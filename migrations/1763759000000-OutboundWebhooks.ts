import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed outbound webhooks (extensions-v2 25.3): an organization's endpoints (the secret sealed with
 * DATA_ENCRYPTION_KEY, the previous one kept 24 h after a rotation) and the delivery log (kept 30 days). A
 * redelivery is a new delivery row of the same event (`redelivery_of`); the first delivery of an event to an
 * endpoint exists once.
 */
export class OutboundWebhooks1763759000000 implements MigrationInterface {
  name = 'OutboundWebhooks1763759000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
        description text NULL CHECK (char_length(description) <= 200),
        events text[] NOT NULL CHECK (cardinality(events) >= 1),
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text NULL CHECK (disabled_reason IN ('failing', 'gone')),
        secret_sealed text NOT NULL,
        previous_secret_sealed text NULL,
        previous_secret_expires_at timestamptz NULL,
        secret_rotated_at timestamptz NULL,
        failing_since timestamptz NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK (NOT enabled OR disabled_reason IS NULL)
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS webhook_endpoints_org_idx ON webhook_endpoints (organization_id, created_at, id)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS webhook_endpoints_created_by_idx ON webhook_endpoints (created_by)`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS webhook_endpoints_failing_idx ON webhook_endpoints (failing_since)
       WHERE enabled AND failing_since IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE IF NOT EXISTS webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        data jsonb NOT NULL,
        redelivery_of uuid NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_attempt_at timestamptz NULL,
        next_attempt_at timestamptz NULL,
        last_status_code integer NULL,
        last_error text NULL,
        response_ms integer NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_first_idx ON webhook_deliveries (endpoint_id, event_id)
       WHERE redelivery_of IS NULL`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS webhook_deliveries_created_idx ON webhook_deliveries (created_at)`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS webhook_deliveries_user_idx ON webhook_deliveries ((data ->> 'user_id'))
       WHERE data ? 'user_id'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS webhook_deliveries`);
    await q.query(`DROP TABLE IF EXISTS webhook_endpoints`);
  }
}
