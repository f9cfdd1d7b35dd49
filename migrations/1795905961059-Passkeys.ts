import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 28 (extensions-v3 3): passkeys (WebAuthn credentials, at most 10 a person) and their one-time challenges,
 * kept in PostgreSQL so any instance can verify the answer to a challenge another instance issued.
 */
export class Passkeys1795905961059 implements MigrationInterface {
  name = 'Passkeys1795905961059';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE passkeys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        credential_id text NOT NULL CHECK (char_length(credential_id) BETWEEN 1 AND 1366),
        public_key bytea NOT NULL,
        counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
        device_type text NOT NULL CHECK (device_type IN ('single_device', 'multi_device')),
        backed_up boolean NOT NULL,
        transports text[] NOT NULL DEFAULT '{}',
        aaguid text NULL,
        created_at timestamptz NOT NULL,
        last_used_at timestamptz NULL,
        disabled_at timestamptz NULL,
        disabled_reason text NULL CHECK (disabled_reason IN ('clone_detected'))
      )`);
    await q.query(`CREATE UNIQUE INDEX passkeys_credential_uq ON passkeys (credential_id)`);
    await q.query(`CREATE INDEX passkeys_user_idx ON passkeys (user_id, created_at)`);
    await q.query(`
      CREATE TABLE passkey_challenges (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        purpose text NOT NULL CHECK (purpose IN ('registration', 'sign_in', 'step_up', 'two_factor')),
        challenge text NOT NULL,
        user_id uuid NULL REFERENCES users (id) ON DELETE CASCADE,
        binding text NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX passkey_challenges_challenge_uq ON passkey_challenges (challenge)`);
    await q.query(`CREATE INDEX passkey_challenges_expiry_idx ON passkey_challenges (expires_at)`);
    await q.query(`CREATE INDEX passkey_challenges_user_idx ON passkey_challenges (user_id) WHERE user_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE passkey_challenges`);
    await q.query(`DROP TABLE passkeys`);
  }
}
