import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Privacy (extensions-v2 17): consents become an append-only history with `granted` (the announcements branch may
 * have added it first, hence IF NOT EXISTS), an age bracket managed by an organization, data exports, scheduled
 * erasures with their progress per step, guardian consent requests by email and organizations' attestations.
 */
export class Privacy1763756000000 implements MigrationInterface {
  name = 'Privacy1763756000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE consents ADD COLUMN IF NOT EXISTS granted boolean NOT NULL DEFAULT true`);
    await q.query(
      `ALTER TABLE users ADD COLUMN IF NOT EXISTS age_bracket_managed_by uuid NULL
         REFERENCES organizations (id) ON DELETE SET NULL`,
    );

    await q.query(`
      CREATE TABLE privacy_exports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'ready', 'failed', 'expired')),
        file_key text NULL,
        size_bytes bigint NULL,
        created_at timestamptz NOT NULL,
        ready_at timestamptz NULL,
        expires_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX privacy_exports_user_idx ON privacy_exports (user_id, created_at DESC, id)`);
    await q.query(`CREATE INDEX privacy_exports_expiry_idx ON privacy_exports (expires_at) WHERE status = 'ready'`);
    // One export being built per person at a time (409 export_in_progress), also under concurrent requests.
    await q.query(
      `CREATE UNIQUE INDEX privacy_exports_active_uq ON privacy_exports (user_id) WHERE status IN ('queued', 'running')`,
    );

    // The erasure request and, once it runs, the steps done (each committed with its step, so a crash resumes
    // at the step it was in). `former_email` is sealed (AES-GCM) and cleared once the last email is queued.
    await q.query(`
      CREATE TABLE account_erasures (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('scheduled', 'running', 'completed', 'cancelled')),
        keep_certificate_names boolean NOT NULL DEFAULT false,
        requested_at timestamptz NOT NULL,
        scheduled_for timestamptz NOT NULL,
        reminded_at timestamptz NULL,
        started_at timestamptz NULL,
        lease_until timestamptz NULL,
        completed_at timestamptz NULL,
        cancelled_at timestamptz NULL,
        former_email text NULL,
        former_locale text NULL,
        steps_done text[] NOT NULL DEFAULT '{}'
      )`);
    await q.query(
      `CREATE UNIQUE INDEX account_erasures_active_uq ON account_erasures (user_id) WHERE status IN ('scheduled', 'running')`,
    );
    await q.query(
      `CREATE INDEX account_erasures_due_idx ON account_erasures (scheduled_for) WHERE status IN ('scheduled', 'running')`,
    );

    await q.query(`
      CREATE TABLE guardian_consents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        guardian_email text NOT NULL CHECK (char_length(guardian_email) <= 254),
        guardian_name text NULL CHECK (char_length(guardian_name) <= 120),
        status text NOT NULL CHECK (status IN ('pending', 'granted', 'denied', 'revoked', 'replaced')),
        token_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        revoke_token_hash text NULL,
        revoke_expires_at timestamptz NULL,
        requested_at timestamptz NOT NULL,
        decided_at timestamptz NULL,
        revoked_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX guardian_consents_token_uq ON guardian_consents (token_hash)`);
    await q.query(
      `CREATE UNIQUE INDEX guardian_consents_revoke_token_uq ON guardian_consents (revoke_token_hash)
       WHERE revoke_token_hash IS NOT NULL`,
    );
    await q.query(`CREATE INDEX guardian_consents_user_idx ON guardian_consents (user_id, requested_at DESC)`);

    await q.query(`
      CREATE TABLE guardian_attestations (
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
        attested_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        attested_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id)
      )`);
    await q.query(`CREATE INDEX guardian_attestations_user_idx ON guardian_attestations (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['guardian_attestations', 'guardian_consents', 'account_erasures', 'privacy_exports']) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query(`ALTER TABLE users DROP COLUMN IF EXISTS age_bracket_managed_by`);
    // consents.granted is left in place: the announcements migration may own it.
  }
}
