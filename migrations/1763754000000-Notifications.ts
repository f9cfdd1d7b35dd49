import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notifications and push (extensions-v2 13): the inbox (one row per notification and recipient, unique per source
 * event and recipient so a redelivered event creates nothing twice), preferences per person (category overrides
 * over the defaults of 13.1, quiet hours), web push subscriptions and native devices.
 */
export class Notifications1763754000000 implements MigrationInterface {
  name = 'Notifications1763754000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE notifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        organization_id uuid NULL REFERENCES organizations (id) ON DELETE CASCADE,
        category text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        url text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}'::jsonb,
        -- The fact it comes from (a domain event id, or a schedule's key): one notification per source and person.
        source_key text NOT NULL,
        -- False when the person turned the in-app channel off: the row exists for push and email only.
        in_app boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL,
        read_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX notifications_source_uq ON notifications (source_key, user_id)`);
    await q.query(
      `CREATE INDEX notifications_inbox_idx ON notifications (user_id, created_at DESC, id DESC) WHERE in_app`,
    );
    await q.query(
      `CREATE INDEX notifications_unread_idx ON notifications (user_id, organization_id) WHERE in_app AND read_at IS NULL`,
    );
    await q.query(`CREATE INDEX notifications_created_idx ON notifications (created_at)`);

    await q.query(`
      CREATE TABLE notification_preferences (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        -- Only what the person changed: {<category>: {in_app?, push?, email?}} over the defaults.
        categories jsonb NOT NULL DEFAULT '{}'::jsonb,
        quiet_enabled boolean NOT NULL DEFAULT false,
        quiet_start text NOT NULL DEFAULT '22:00' CHECK (quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
        quiet_end text NOT NULL DEFAULT '07:00' CHECK (quiet_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
        updated_at timestamptz NOT NULL,
        CHECK (quiet_start <> quiet_end)
      )`);

    await q.query(`
      CREATE TABLE push_subscriptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        endpoint text NOT NULL CHECK (char_length(endpoint) BETWEEN 1 AND 2048),
        p256dh text NOT NULL,
        auth text NOT NULL,
        expiration_time bigint NULL,
        created_at timestamptz NOT NULL,
        last_success_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX push_subscriptions_endpoint_uq ON push_subscriptions (endpoint)`);
    await q.query(`CREATE INDEX push_subscriptions_user_idx ON push_subscriptions (user_id, created_at)`);

    await q.query(`
      CREATE TABLE push_devices (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ('ios', 'android')),
        token text NOT NULL CHECK (char_length(token) BETWEEN 1 AND 4096),
        -- sha256 of the token: a token may be longer than a btree entry allows.
        token_hash text NOT NULL,
        app_version text NULL CHECK (char_length(app_version) <= 32),
        created_at timestamptz NOT NULL,
        last_success_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX push_devices_token_uq ON push_devices (token_hash)`);
    await q.query(`CREATE INDEX push_devices_user_idx ON push_devices (user_id, created_at)`);
    // Withdrawals of consent (type=all unsubscribes, 17.2); the announcements migration adds the same column.
    await q.query(`ALTER TABLE consents ADD COLUMN IF NOT EXISTS granted boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['push_devices', 'push_subscriptions', 'notification_preferences', 'notifications']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
